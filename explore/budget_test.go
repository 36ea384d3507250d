package explore

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole is split: the write reserve last, the search first (half of
// the rest, less when confirming on redis-server, all of it when nothing
// is shrunk, For when given), shrinking between, and confirming on
// redis-server, when asked, after shrinking.
func TestPlanSplitsTheTimeout(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want Plan
	}{
		{"for alone bounds only the search", Config{For: time.Minute}, Plan{Search: time.Minute}},
		{"no bound", Config{Runs: 10}, Plan{}},
		{"timeout alone", Config{Timeout: time.Minute}, Plan{Search: 27 * time.Second, Shrink: 54 * time.Second, Finish: 54 * time.Second, Total: time.Minute}},
		{"confirming leaves more", Config{Timeout: 90 * time.Second, Confirm: ConfirmRedis}, Plan{Search: 32400 * time.Millisecond, Shrink: 56700 * time.Millisecond, Finish: 81 * time.Second, Total: 90 * time.Second}},
		{"nothing to shrink", Config{Timeout: time.Minute, NoShrink: true}, Plan{Search: 54 * time.Second, Shrink: 54 * time.Second, Finish: 54 * time.Second, Total: time.Minute}},
		{"for and timeout", Config{For: 20 * time.Second, Timeout: time.Minute}, Plan{Search: 20 * time.Second, Shrink: 54 * time.Second, Finish: 54 * time.Second, Total: time.Minute}},
		{"for as long as the timeout", Config{For: time.Minute, Timeout: time.Minute}, Plan{Search: 54 * time.Second, Shrink: 54 * time.Second, Finish: 54 * time.Second, Total: time.Minute}},
		{"a short one keeps a second to write", Config{Timeout: 3 * time.Second}, Plan{Search: time.Second, Shrink: 2 * time.Second, Finish: 2 * time.Second, Total: 3 * time.Second}},
		{"a long one keeps ten seconds", Config{Timeout: time.Hour}, Plan{Search: 1795 * time.Second, Shrink: 3590 * time.Second, Finish: 3590 * time.Second, Total: time.Hour}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Algorithm = "setpx"
			assert.Equal(t, c.want, cfg.withDefaults().Plan())
		})
	}
	_, err := Config{Algorithm: "setpx", For: time.Minute, Timeout: 30 * time.Second}.Resolve()
	require.ErrorIs(t, err, BadInput)
	assert.Contains(t, err.Error(), "--timeout 30s: shorter than --for 1m0s")
}

// A budget that ends after the search leaves every violation unshrunk
// and says so; one that ends after the first shrink keeps that one, and
// both are written. The budget's clock is injected: it jumps past the
// plan's Finish when the named shrink phase begins, so no test waits on
// wall time.
func TestBudgetEndLeavesTheRestUnshrunk(t *testing.T) {
	for _, c := range []struct {
		name      string
		jumpAt    string // the Progress phase at which the clock jumps
		wantCause bool
	}{
		{"after the search", "shrink 1/", false},
		{"after the first shrink", "shrink 2/", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var jumped atomic.Bool
			out := t.TempDir()
			cfg := Config{Algorithm: "setnx-expire", Kinds: []vocab.Kind{"crash-client", "pause-client"}, Runs: 200, MaxFaults: 3,
				Duration: time.Second, Timeout: time.Hour, Out: out, Confirm: ConfirmNone,
				Progress: func(p Progress) {
					if strings.HasPrefix(p.Phase, c.jumpAt) {
						jumped.Store(true)
					}
				},
				now: func() time.Time {
					if jumped.Load() {
						return base.Add(2 * time.Hour)
					}
					return base
				}}
			rep, err := Explore(hostCtx(t), cfg)
			require.NoError(t, err, "the budget's end is no error")
			require.GreaterOrEqual(t, len(rep.Violations), 2, "the test needs two findings: %+v", rep)
			assert.Equal(t, 200, rep.Runs, "the search ran its runs")
			budget := 0
			for _, v := range rep.Violations {
				if v.Unshrunk == UnshrunkBudget {
					budget++
					assert.Empty(t, v.Cause)
					assert.Empty(t, v.Reproduced.Virtual, "not replayed either")
					assert.FileExists(t, v.Scenario, "its schedule is written as found")
				}
			}
			assert.Positive(t, budget)
			assert.Equal(t, c.wantCause, len(rep.Causes) > 0, "%+v", rep.Causes)
			lines := strings.Join(rep.Lines(), "\n")
			assert.Contains(t, lines, "not shrunk (budget)")
			summary, err := os.ReadFile(filepath.Join(out, FileSummary))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "signatures not shrunk (budget)")
			back, err := ReadReport(out)
			require.NoError(t, err)
			assert.Equal(t, rep.Causes, back.Causes)
		})
	}
}

// Among a signature's hits the one with the fewest faults is shrunk, then
// the shortest run, then the lowest index, whatever order they came in.
func TestMostPromisingHit(t *testing.T) {
	cfg := Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client", "kill-node"}}.withDefaults()
	var scheds []int
	faults := map[int]int{}
	for j := range 40 {
		s := Generate(cfg, LoopPoints, j)
		faults[j] = len(s.Faults)
		scheds = append(scheds, j)
	}
	pick := func(order []int) (int, []hit) {
		f := &found{}
		for _, j := range order {
			f.add(j, Generate(cfg, LoopPoints, j), Finding{Check: "claim", Verdict: "unsafe"})
		}
		return f.j, f.list
	}
	fwd, ranked := pick(scheds)
	rev := make([]int, len(scheds))
	for i, j := range scheds {
		rev[len(scheds)-1-i] = j
	}
	back, ranked2 := pick(rev)
	assert.Equal(t, fwd, back, "the choice does not depend on the order")
	assert.Equal(t, ranked, ranked2)
	assert.Equal(t, fwd, ranked[0].j)
	for j, n := range faults {
		assert.LessOrEqual(t, faults[fwd], n, "schedule %d has fewer faults than the one chosen", j)
		if n == faults[fwd] {
			assert.LessOrEqual(t, fwd, j, "ties go to the lower index")
		}
	}
	for i := 1; i < len(ranked); i++ {
		assert.False(t, ranked[i].promising(ranked[i-1]), "ranked in order")
	}
}
