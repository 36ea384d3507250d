package explore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Directories and files of an exploration's output directory.
const (
	FileReport    = "explore.json"
	FileSummary   = "summary.md"
	DirScenarios  = "scenarios" // the shrunk scenarios, one YAML each
	DirRuns       = "runs"      // their run directories (scenarios.Execute)
	redisRunSlack = time.Minute // a real-time replay's bound beyond its length
)

// finisher shrinks, writes and replays the violations of one exploration.
type finisher struct {
	cfg  Config
	rep  *Report
	rule Rule
	// causes are the shrunk findings so far, by violation number.
	causes map[int]Finding
}

// coveredBy returns the number of an earlier violation whose shrunk cause
// f contains (the same failure, every kind of the cause active), or 0.
func (fi *finisher) coveredBy(f Finding) int {
	best := 0
	for n, c := range fi.causes {
		if !c.Same(f) || len(c.Kinds) == 0 || c.Known != f.Known {
			continue
		}
		all := true
		for _, k := range c.Kinds {
			all = all && slices.Contains(f.Kinds, k)
		}
		if all && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

func newFinisher(cfg Config, rep *Report) *finisher {
	return &finisher{cfg: cfg, rep: rep, rule: Rule{Reruns: cfg.Reruns, Need: cfg.Need, Workers: cfg.Workers}, causes: map[int]Finding{}}
}

// finish fills in v for the violation f (number n): shrunk when shrink is
// set, its scenario written with its expect, replayed in virtual time (and
// on redis-server when asked), and run once more through
// scenarios.Execute for a run directory.
func (fi *finisher) finish(ctx context.Context, v *Violation, f *found, n int, shrink bool) error {
	algo := fi.cfg.Algorithm
	s := clone(f.s)
	target := f.finding
	if shrink {
		sh, err := Shrink(ctx, s, algo, target, fi.rule)
		if err != nil && ctx.Err() != nil {
			return err
		}
		switch {
		case err != nil:
			v.Note = "not shrunk: " + err.Error()
		case !sh.Passed:
			v.Note = fmt.Sprintf("not shrunk: neither it nor any smaller neighbour failed the check in %d of %d reruns (%d tried)",
				fi.rule.Need, fi.rule.Reruns, sh.Tries)
		default:
			s = sh.Scenario
			v.ShrinkSteps, v.ShrinkTries = sh.Steps, sh.Tries
			v.ShrunkSignature = sh.Found.Signature()
			fi.causes[n] = Finding{Check: target.Check, Verdict: target.Verdict, Kinds: sh.Found.Kinds, Known: target.Known}
		}
		markUnfired(s, sh.Unfired)
	} else if ctx.Err() != nil {
		v.Note = "not shrunk: the exploration was interrupted"
	} else if !fi.cfg.shrinks(target) {
		v.Note = "not shrunk or replayed: the reference fails it too, a known weakness of the family (--strict shrinks it)"
	} else {
		v.Note = fmt.Sprintf("not shrunk or replayed: past the first %d distinct violations (or --no-shrink)", fi.cfg.MaxShrink)
	}
	v.FaultsAfter = len(s.Faults)
	s.Name = fmt.Sprintf("explore-%s-%d-%s", algo, n, slug(target.Check, string(target.Verdict)))
	s.Doc = fmt.Sprintf("Found by locksim explore --algos %s --seed %d (schedule %d, signature %q) and shrunk from %d faults to %d.",
		algo, fi.cfg.Seed, f.j, v.Signature, v.FaultsBefore, v.FaultsAfter)
	s.Expectations = expectFor(algo, target)
	directFailover(s)
	if ctx.Err() == nil && shrink {
		k, _, err := fi.rule.reproduce(ctx, s, algo, target, false)
		if err != nil && ctx.Err() != nil {
			return err
		}
		v.Reproduced.Virtual = fmt.Sprintf("%d/%d", k, fi.rule.Reruns)
		if fi.cfg.Confirm == ConfirmRedis && fi.cfg.Out != "" {
			rt := fi.confirmRedis(ctx, s, target)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			v.Reproduced.Redis = rt.String()
			// Only a scenario that meets the rule in virtual time is made
			// stronger: one that does not fails for reasons a longer
			// fault does not reach (timing only some seeds give).
			if !rt.meets(fi.rule) && rt.err == nil && k >= fi.rule.Need {
				s = fi.robustify(ctx, v, s, target, rt)
				if v.Strengthened > 0 {
					s.Doc += fmt.Sprintf(" Then strengthened %d times (the run, the hold and every fault's length and size x%.1f, or the hold x4 and the run alone where longer faults no longer failed) because as shrunk it reproduced %s on redis-server in real time.",
						v.Strengthened, strength, v.Reproduced.AsShrunk.Redis)
				}
			}
		}
	}
	if fi.cfg.Out == "" {
		return nil
	}
	path, err := writeScenario(fi.cfg.Out, s)
	if err != nil {
		return err
	}
	v.Scenario = path
	if ctx.Err() != nil || !shrink {
		return nil // the replays cost more than the exploration's runs
	}
	// The normal run directory, as `locksim run` on the file makes it.
	loaded, err := scenarios.LoadFile(path)
	if err != nil {
		return fmt.Errorf("%w: the shrunk scenario does not load back: %w", sim.ErrHarness, err)
	}
	o, err := scenarios.Execute(ctx, loaded, algo, scenarios.RunOptions{Out: filepath.Join(fi.cfg.Out, DirRuns)})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		v.Note = strings.TrimSpace(v.Note + "; its run failed: " + err.Error())
	} else {
		v.Dir, v.RunAsExpected = o.Dir, o.AsExpected
	}
	return nil
}

// confirmRedis replays s Reruns times on redis-server processes in real
// time (seeds s.Seed+i, as in virtual time) and counts how often target's
// check failed again.
func (fi *finisher) confirmRedis(ctx context.Context, s *scenarios.Scenario, target Finding) tally {
	rs := onRedis(s)
	cfg, err := rs.Config(fi.cfg.Algorithm)
	if err != nil {
		return tally{err: err}
	}
	var t tally
	seed := deref(s.Seed, 0)
	for i := range fi.rule.Reruns {
		c := cfg
		c.Seed = seed + uint64(i)
		rctx, cancel := context.WithTimeout(ctx, c.WithDefaults().Duration+redisRunSlack)
		o, err := play(rctx, rs, c)
		cancel()
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			t.err = err
			return t
		}
		t.n++
		if o.Same(target) {
			t.k++
		}
	}
	return t
}

// onRedis is s for redis-server.
func onRedis(s *scenarios.Scenario) *scenarios.Scenario {
	rs := clone(s)
	rs.Backend = string(sim.BackendRedis)
	return rs
}

// directFailover writes the failover the exploration played into a
// scenario with a failover fault that names no mode: miniredis's emulated
// failover promotes the replica the moment the master dies, which is
// failover: {mode: direct} on both backends. Left out, redis-server would
// default to Sentinel, which first waits down_after (longer than a lease)
// before it promotes anything, so the file would not replay there what
// was found and confirmed.
func directFailover(s *scenarios.Scenario) {
	if s.Failover == nil && slices.ContainsFunc(s.Faults, func(f scenarios.FaultSpec) bool { return f.Kind == faults.KindFailover }) {
		s.Failover = &scenarios.Failover{Mode: string(sim.FailoverDirect)}
	}
}

// expectFor is the expect: entry of a shrunk scenario: the verdict found
// and the check that gave it.
func expectFor(algo string, f Finding) scenarios.Expectations {
	e := scenarios.Expectation{Verdict: scenarios.Verdict(f.Verdict)}
	if f.Check != "" {
		e.Checks = map[string]scenarios.Verdict{f.Check: scenarios.Verdict(f.Verdict)}
	}
	return scenarios.Expectations{algo: e}
}

// markUnfired marks optional the faults (1-based) that did not act in the
// scenario's own run, so that `locksim run` counts it as played.
func markUnfired(s *scenarios.Scenario, unfired []int) {
	for _, id := range unfired {
		if id >= 1 && id <= len(s.Faults) {
			s.Faults[id-1].Optional = ptr(true)
		}
	}
}

// writeScenario writes s as DIR/scenarios/<name>.yaml, atomically, and
// checks that it parses back.
func writeScenario(out string, s *scenarios.Scenario) (string, error) {
	dir := filepath.Join(out, DirScenarios)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	data, err := MarshalScenario(s)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, s.Name+".yaml")
	if _, err := scenarios.Parse(path, data); err != nil {
		return "", fmt.Errorf("%w: the shrunk scenario does not parse back: %w", sim.ErrHarness, err)
	}
	err = artifact.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	if err != nil {
		return "", fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	return path, nil
}

// MarshalScenario writes s in the scenario schema, fields in schema order,
// as a person would: only what is set.
func MarshalScenario(s *scenarios.Scenario) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("%w: encode scenario %s: %w", sim.ErrHarness, s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("%w: encode scenario %s: %w", sim.ErrHarness, s.Name, err)
	}
	return b.Bytes(), nil
}

// checkOut refuses an output directory that exists and is not an
// exploration's or empty, so an exploration never mixes with other files.
func checkOut(out string) error {
	if err := report.CheckOutRoot(out); err != nil {
		return fmt.Errorf("%w: --out %s: %v", BadInput, out, err)
	}
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: --out %s: %v", BadInput, out, err)
	}
	known := []string{FileReport, FileSummary, DirScenarios, DirRuns}
	for _, e := range entries {
		if !slices.Contains(known, e.Name()) && !strings.HasPrefix(e.Name(), ".") {
			return fmt.Errorf("%w: --out %s: holds %s, which an exploration does not write; give an empty or new directory", BadInput, out, e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(out, FileReport)); err == nil {
		return fmt.Errorf("%w: --out %s: already holds an exploration (%s); give a new directory", BadInput, out, FileReport)
	}
	return nil
}
