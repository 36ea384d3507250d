package explore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/vtime"
)

// Test explores the registered design algo (lock.Register) from a lock
// author's own go test: cfg.Algorithm is set to algo, the runs go in
// virtual time as subtests of t, and every violation found that the
// design's reference (cfg.Against, else its lock.Info.Like) does not share
// on the same schedule (all of them with cfg.Strict or without a
// reference) fails t with
// its check, its reproduction rate and the path of the shrunk scenario
// (replay it with Replay in a test of the same package). cfg.Out defaults to a new
// directory under os.TempDir() that outlives a failed test, so the paths
// in the failure stay valid, and is removed when the test passes. Confirm
// stays none unless cfg asks for redis.
// It returns the report (nil when the exploration could not run, after
// failing t).
//
//	func TestMyLockExplored(t *testing.T) {
//		explore.Test(t, "my-lock", explore.Config{Runs: 300, Kinds: []vocab.Kind{"pause-client", "kill-node"}})
//	}
func Test(t *testing.T, algo string, cfg Config) *Report {
	t.Helper()
	cfg.Algorithm = algo
	if cfg.Out == "" {
		dir, err := os.MkdirTemp("", "locksim-explore-"+slug(algo)+"-")
		if err != nil {
			t.Fatalf("explore %s: %v", algo, err)
			return nil
		}
		cfg.Out = dir
		t.Cleanup(func() {
			if !t.Failed() {
				_ = os.RemoveAll(dir)
			}
		})
	}
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	rep, err := Explore(ctx, cfg)
	if err != nil {
		t.Fatalf("explore %s: %v", algo, err)
		return nil
	}
	for _, line := range rep.Failures() {
		t.Error(line)
	}
	if d := rep.DifferentialLine(); d != "" {
		t.Log("explore " + d)
	}
	t.Logf("explore %s: %d runs, %.0f runs/min, %d distinct violations; summary in %s",
		algo, rep.Runs, rep.RunsPerMin, len(rep.Violations), cfg.Out)
	return rep
}

// Failures says what r found, as Test fails with it: each cause in one
// line (its check, reproduction, fault count, the cause and how to replay
// its scenario), then one line per reason for the violations left without
// a cause.
func (r *Report) Failures() []string {
	var out []string
	causes := r.Causes
	if causes == nil {
		causes = causesOf(r.Violations)
	}
	strict := r.Strict || r.Reference == ""
	for _, c := range causes {
		if c.Known && !strict {
			continue
		}
		where := c.Replay
		if where == "" {
			where = fmt.Sprintf("violation %d (not written: no output directory)", c.Shown)
		}
		repro := "reproduced " + orDash(c.Reproduced.Virtual) + " in virtual time"
		if c.Reproduced.Redis != "" {
			repro += ", " + c.Reproduced.Redis + " on redis-server"
		}
		out = append(out, fmt.Sprintf("%s: %s %s (%s, %s): %s; %s; replay: %s",
			r.Algorithm, orDash(c.Check), strings.ToUpper(c.Verdict), repro, plural(c.FaultCount, "fault"), c.Faults,
			plural(len(c.Violations), "signature"), where))
	}
	counts := unshrunkCounts(r.Failing())
	for _, why := range unshrunkOrder {
		if n := counts[why]; n > 0 {
			out = append(out, fmt.Sprintf("%s: %d more %s (see %s)", r.Algorithm, n, strings.TrimPrefix(plural(n, "signature"), fmt.Sprint(n)+" ")+" "+unshrunkWhy[why], orDefault(r.Written, "the report")))
		}
	}
	return out
}
