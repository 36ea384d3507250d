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

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Directories and files of an exploration's output directory.
const (
	FileReport    = "explore.json"
	FileSummary   = "summary.md"
	DirScenarios  = "scenarios" // the shrunk scenarios, one YAML each
	DirRuns       = "runs"      // their run directories (run.Execute)
	redisRunSlack = time.Minute // a real-time replay's bound beyond its length
)

// finisher shrinks, writes and replays the violations of one exploration.
type finisher struct {
	cfg  Config
	rep  *Report
	rule Rule
	// later are the shrunk violations to confirm and run (confirmAndRun).
	later []later
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

// alternatives bounds how many of a signature's hits are shrunk, the most
// promising first, until one meets the rule: the hit with the fewest
// faults may fail only with its own seed's interleaving, where one with a
// fault more fails every time.
const alternatives = 3

// shrinkBest shrinks f's hits, the most promising first (up to
// alternatives of them), until one meets the rule, the budget ends or ctx
// does, and returns the last shrink with the schedule it started from and
// that schedule's index.
func (fi *finisher) shrinkBest(b *budget, f *found) (best shrinkTry, err error) {
	best = shrinkTry{from: f.s, j: f.j}
	for _, h := range f.list {
		if best.tried == alternatives || b.ctx.Err() != nil || b.shrinkOver() {
			break
		}
		best.from, best.j = f.s, f.j
		if h.j != f.j && h.s != nil {
			best.from, best.j = h.s, h.j
		}
		best.tried++
		best.Shrunk, err = Shrink(b.shrink, clone(best.from), fi.cfg.Algorithm, f.finding)
		if err == nil && best.Passed {
			break
		}
	}
	return best, err
}

// shrinkTry is shrinkBest's last shrink: from schedule j (the scenario
// from), the tried-th hit shrunk.
type shrinkTry struct {
	Shrunk
	from  *scenarios.Scenario
	j     int
	tried int
}

// finish fills in v for the violation f (number n): shrunk when shrink is
// set (until b's shrink ends), replayed in virtual time and its scenario
// written with its expect; a shrunk one is kept for confirmAndRun. What
// the budget cut is recorded in v, not returned. An error is a harness
// failure or the caller's interruption.
func (fi *finisher) finish(b *budget, v *Violation, f *found, n int, shrink bool) error {
	algo := fi.cfg.Algorithm
	s := clone(f.s)
	target := f.finding
	switch {
	case shrink:
		sh, err := fi.shrinkBest(b, f)
		if b.ctx.Err() != nil {
			return b.ctx.Err()
		}
		tried := sh.tried
		if sh.j != f.j {
			s = clone(sh.from)
			v.Schedule, v.Seed, v.FaultsBefore = sh.j, deref(sh.from.Seed, 0), len(sh.from.Faults)
		}
		if tried > 1 {
			v.Note = fmt.Sprintf("%d of its %d runs shrunk, the most promising first, until one failed again as a scenario or the budget ended", tried, f.hits)
		}
		cut := b.shrinkOver()
		switch {
		case (err != nil || !sh.Passed) && cut:
			v.Unshrunk = UnshrunkBudget
			v.Note = joinNote(v.Note, "not shrunk (budget): the time for shrinking ended before it was shrunk")
		case err != nil:
			v.Unshrunk = UnshrunkError
			v.Note = "not shrunk: " + err.Error()
		case !sh.Passed:
			v.Unshrunk = UnshrunkRule
			v.Note = fmt.Sprintf("not shrunk: none of its %d most promising runs failed the check again when run as a scenario with its own seed", tried)
		default:
			s = sh.Scenario
			v.ShrinkSteps, v.ShrinkTries = sh.Steps, sh.Tries
			v.ShrunkSignature = sh.Found.Signature()
			v.Cause = causeOf(s, target, fi.cfg)
			fi.causes[n] = Finding{Check: target.Check, Verdict: target.Verdict, Kinds: sh.Found.Kinds, Known: target.Known}
			if cut {
				v.CutShort = true
				v.Note = joinNote(v.Note, "shrinking cut short (budget): the scenario meets the rule, a smaller one may too")
			}
		}
		markUnfired(s, sh.Unfired)
	case b.ctx.Err() != nil:
		v.Unshrunk = UnshrunkInterrupted
		v.Note = "not shrunk: the exploration was interrupted"
	case fi.cfg.NoShrink:
		v.Unshrunk = UnshrunkNoShrink
		v.Note = "not shrunk or replayed: --no-shrink"
	case !fi.cfg.shrinks(target):
		v.Unshrunk = UnshrunkKnown
		v.Note = "not shrunk or replayed: the reference fails it too, a known weakness of the family (--strict shrinks it)"
	case b.shrinkOver():
		v.Unshrunk = UnshrunkBudget
		v.Note = "not shrunk (budget): the time for shrinking had ended"
	default:
		v.Unshrunk = UnshrunkMax
		v.Note = fmt.Sprintf("not shrunk or replayed: past the first %d distinct violations shrunk (--max-shrink)", fi.cfg.MaxShrink)
	}
	shrunk := v.Cause != ""
	v.FaultsAfter = len(s.Faults)
	s.Name = fmt.Sprintf("explore-%s-%d-%s", algo, n, slug(target.Check, string(target.Verdict)))
	s.Doc = fmt.Sprintf("Found by locksim explore --algos %s%s --seed %d (schedule %d, signature %q) and shrunk from %d faults to %d.",
		algo, modeFlag(fi.cfg), fi.cfg.Seed, v.Schedule, v.Signature, v.FaultsBefore, v.FaultsAfter)
	if !shrunk {
		s.Doc = fmt.Sprintf("Found by locksim explore --algos %s%s --seed %d (schedule %d, signature %q), as found: %s.",
			algo, modeFlag(fi.cfg), fi.cfg.Seed, v.Schedule, v.Signature, unshrunkWhy[orDefault(v.Unshrunk, UnshrunkError)])
	}
	s.Expectations = expectFor(algo, target)
	directFailover(s)
	k := -1
	if shrunk && !b.wrapOver() && b.ctx.Err() == nil {
		var err error
		k, _, err = fi.rule.reproduce(b.wrap, s, algo, target)
		switch {
		case b.ctx.Err() != nil:
			return b.ctx.Err()
		case b.wrapOver():
			k = -1
			v.Unconfirmed = UnshrunkBudget
		case err != nil:
			k = -1
			v.Note = joinNote(v.Note, "its replay failed: "+err.Error())
		default:
			v.Reproduced.Virtual = fmt.Sprintf("%d/%d", k, fi.rule.Reruns)
		}
	} else if shrunk {
		v.Unconfirmed = UnshrunkBudget
	}
	if fi.cfg.Out == "" {
		return nil
	}
	path, err := writeScenario(fi.cfg.Out, s)
	if err != nil {
		return err
	}
	v.Scenario = path
	v.Replay = replayOf(algo, path)
	if shrunk && b.ctx.Err() == nil {
		fi.later = append(fi.later, later{n: n, s: s, target: target, k: k})
	}
	return nil
}

// later is a shrunk violation (number n, scenario s, reproduced k times in
// virtual time, -1 when not replayed) whose confirmation on redis-server
// and run directory come after every violation is shrunk: confirming
// costs ten real-time runs, shrinking a few hundred in virtual time, and
// a budget is better spent on a cause for each signature first.
type later struct {
	n      int
	s      *scenarios.Scenario
	target Finding
	k      int
}

// confirmAndRun confirms the shrunk violations of vs on redis-server (when
// asked, until b's work ends) and writes their run directories (until its
// wrap ends), those that stand for a cause first, in the causes' order;
// vs[n-1] is violation n.
// An error is a harness failure or the caller's interruption.
func (fi *finisher) confirmAndRun(b *budget, vs []Violation) error {
	// The causes in their order (the most signatures first), then the
	// other shrunk violations.
	rank := map[int]int{}
	for i, c := range causesOf(vs) {
		rank[c.Shown] = i + 1
	}
	todo := slices.Clone(fi.later)
	slices.SortStableFunc(todo, func(a, c later) int {
		ra, rc := rank[a.n], rank[c.n]
		switch {
		case ra == rc:
			return 0
		case ra == 0:
			return 1
		case rc == 0:
			return -1
		}
		return ra - rc
	})
	for i, l := range todo {
		v := &vs[l.n-1]
		if fi.cfg.Progress != nil {
			fi.cfg.Progress(Progress{Runs: fi.rep.Runs, RunsPerMin: fi.rep.RunsPerMin, Found: hitsOf(vs), Distinct: len(vs),
				Phase: fmt.Sprintf("confirm %d/%d", i+1, len(todo)), Line: "confirming " + v.Signature})
		}
		s := l.s
		if fi.cfg.Confirm == ConfirmRedis && l.k >= 0 {
			if b.over() {
				v.Unconfirmed = UnshrunkBudget
			} else {
				before := s
				fi.confirm(b, v, &s, l.target, l.k)
				if b.ctx.Err() != nil {
					return b.ctx.Err()
				}
				if s != before {
					if _, err := writeScenario(fi.cfg.Out, s); err != nil {
						return err
					}
				}
			}
		}
		if b.wrapOver() {
			v.Note = joinNote(v.Note, "no run directory (budget)")
			continue
		}
		if err := fi.runDir(b, v, l.target); err != nil {
			return err
		}
	}
	return nil
}

// runDir writes the normal run directory of v's written scenario, as
// `locksim run` on the file makes it, its timeline zoomed on the witness
// of the check found failing.
func (fi *finisher) runDir(b *budget, v *Violation, target Finding) error {
	loaded, err := scenarios.LoadFile(v.Scenario)
	if err != nil {
		return fmt.Errorf("%w: the shrunk scenario does not load back: %w", sim.ErrHarness, err)
	}
	o, err := run.Execute(b.wrap, loaded, fi.cfg.Algorithm, run.Options{Out: filepath.Join(fi.cfg.Out, DirRuns), Zoom: target.Check})
	switch {
	case err != nil && b.ctx.Err() != nil:
		return err
	case err != nil && b.wrapOver():
		v.Note = joinNote(v.Note, "no run directory (budget)")
	case err != nil:
		v.Note = joinNote(v.Note, "its run failed: "+err.Error())
	default:
		v.Dir, v.RunAsExpected = o.Dir, o.AsExpected
	}
	return nil
}

// confirm replays *s on redis-server in real time and, when it falls
// short of the rule there while it meets it in virtual time (k), makes it
// stronger; the end of b's work stops both, recorded in v.
func (fi *finisher) confirm(b *budget, v *Violation, s **scenarios.Scenario, target Finding, k int) {
	rt := fi.confirmRedis(b.work, *s, target)
	if b.ctx.Err() != nil {
		return
	}
	if b.over() && rt.n < fi.rule.Reruns {
		v.Unconfirmed = UnshrunkBudget
		if rt.n > 0 {
			v.Reproduced.Redis = rt.String() + " (budget)"
		}
		return
	}
	v.Reproduced.Redis = rt.String()
	// Only a scenario that meets the rule in virtual time is made
	// stronger: one that does not fails for reasons a longer fault does
	// not reach (timing only some seeds give).
	if !rt.meets(fi.rule) && rt.err == nil && k >= fi.rule.Need {
		*s = fi.robustify(b.work, v, *s, target, rt)
		if v.Strengthened > 0 {
			(*s).Doc += fmt.Sprintf(" Then strengthened %d times (the run, the hold and every fault's length and size x%.1f, or the hold x4 and the run alone where longer faults no longer failed) because as shrunk it reproduced %s on redis-server in real time.",
				v.Strengthened, strength, v.Reproduced.AsShrunk.Redis)
		}
	}
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
		spec, err := c.Resolve()
		if err != nil {
			t.err = fmt.Errorf("%w: %w", sim.ErrConfig, err)
			return t
		}
		rctx, cancel := context.WithTimeout(ctx, spec.Config().Duration+redisRunSlack)
		o, err := play(rctx, rs, spec)
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
	if s.Failover == nil && slices.ContainsFunc(s.Faults, func(f scenarios.FaultSpec) bool { return f.Kind.Attrs().Promotes }) {
		s.Failover = &scenarios.Failover{Mode: string(sim.FailoverDirect)}
	}
}

// expectFor is the expect: entry of a shrunk scenario: the verdict found
// and the check that gave it.
func expectFor(algo string, f Finding) scenarios.Expectations {
	e := scenarios.Expectation{Verdict: vocab.Verdict(f.Verdict)}
	if f.Check != "" {
		e.Checks = map[string]vocab.Verdict{f.Check: vocab.Verdict(f.Verdict)}
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

// hitsOf counts the violating runs of vs.
func hitsOf(vs []Violation) int {
	n := 0
	for _, v := range vs {
		n += v.Hits
	}
	return n
}
