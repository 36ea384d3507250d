package explore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/locksim/locksim/internal/version"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// ErrNoHost: explorations run in virtual time and need a vtime.Host in
// their context (vtime.Main in a program, vtime.ForTest in a test).
var ErrNoHost = vtime.ErrNoHost

// maxRunErrors: past this many runs that failed to play (a harness
// failure, not a verdict), the exploration stops with an error.
const maxRunErrors = 5

// found is a signature's violating runs: how many, the most promising
// few (alternatives of them, each with its schedule as it ran), the most
// promising one's schedule and finding, and when the signature first came
// up. The best few are kept by a total order, so that the choice does not
// depend on the order the workers finished them in, and so that the next
// most promising can be shrunk when the best does not fail again.
type found struct {
	j        int
	s        *scenarios.Scenario
	finding  Finding
	hits     int
	list     []hit         // the most promising hits, best first
	at       time.Duration // wall time since the start when first seen
	atRun    int           // runs finished when first seen
	foundSeq int           // order of discovery
}

// hit is one violating run of a signature.
type hit struct {
	j      int
	faults int
	dur    time.Duration // the schedule's simulated length
	// s is the schedule as it ran: a guided draw or a sweep's schedule j
	// is not Generate's j, so a hit is shrunk from what it ran.
	s *scenarios.Scenario
}

// add counts the hit j (schedule s, finding o) and keeps it among the most
// promising, and as the one to shrink when it is the most promising.
func (f *found) add(j int, s *scenarios.Scenario, o Finding) {
	h := hit{j: j, faults: len(s.Faults), dur: deref(s.Duration, 0).D(), s: s}
	f.hits++
	i := 0
	for i < len(f.list) && f.list[i].promising(h) {
		i++
	}
	if i < alternatives {
		f.list = slices.Insert(f.list, i, h)
		if len(f.list) > alternatives {
			f.list = f.list[:alternatives]
		}
	}
	if i == 0 {
		f.j, f.s, f.finding = j, s, o
	}
}

// promising reports whether h is a better start for shrinking than g:
// fewer faults (fewer steps to a small cause, and a found schedule with
// one fault often is the cause), then a shorter run, then the lower
// index.
func (h hit) promising(g hit) bool {
	if h.faults != g.faults {
		return h.faults < g.faults
	}
	if h.dur != g.dur {
		return h.dur < g.dur
	}
	return h.j < g.j
}

// Explore runs cfg's schedules (this shard's), keeps the violating runs by
// signature, shrinks the most promising schedule of each (up to MaxShrink,
// within the budget: Plan), groups them by shrunk cause, replays the
// results and, when cfg.Out is set, writes them there. ctx must carry a
// vtime.Host. A cancelled ctx stops the exploration: the Report then has
// what was found so far (not shrunk), Interrupted is set, and it is
// written too; the error is ctx's. The end of the budget is no error: what
// it left undone is recorded in each Violation.
func Explore(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	if !vtime.FromContext(ctx).Valid() {
		return nil, fmt.Errorf("%w: %w", sim.ErrHarness, ErrNoHost)
	}
	if cfg.Out != "" {
		if err := checkOut(cfg.Out); err != nil {
			return nil, err
		}
	}
	now := cfg.clock()
	began := now()
	plan := cfg.Plan()
	points, err := Points(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Algorithm: cfg.Algorithm, Seed: cfg.Seed, Shard: fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards),
		Kinds: vocab.KindStrings(cfg.Kinds), Points: points, World: worldOf(cfg), Violations: []Violation{},
		Budget:    budgetOf(plan),
		Reference: cfg.reference(), Strict: cfg.Strict,
		Version: version.String(), Machine: run.Machine(), Planned: cfg.Runs, Unguided: cfg.Unguided, Exhaustive: cfg.Exhaustive,
	}
	sched, cfg := newScheduler(ctx, cfg, points)
	table, runs, notPlayed, runErr := sweep(ctx, cfg, sched, began, plan.Search)
	rep.Runs, rep.NotPlayed = runs, notPlayed
	rep.Coverage, rep.Sweep = sched.reach.coverage(), sched.sweep(cfg.Algorithm)
	rep.Elapsed = now().Sub(began).Seconds()
	if rep.Elapsed > 0 {
		rep.RunsPerMin = float64(runs) / rep.Elapsed * 60
	}
	if runErr != nil && ctx.Err() == nil {
		return rep, keep(rep, cfg.Out, runErr)
	}
	rep.Interrupted = ctx.Err() != nil

	list := make([]*found, 0, len(table))
	for _, f := range table {
		list = append(list, f)
	}
	// The most frequent first: its cause is the likeliest to be at work
	// in others (which are then covered, not shrunk again), and the
	// budget goes first to what the runs met most.
	sort.Slice(list, func(a, b int) bool {
		if list[a].hits != list[b].hits {
			return list[a].hits > list[b].hits
		}
		return list[a].foundSeq < list[b].foundSeq
	})
	ownFirst(list)
	bud := newBudget(ctx, plan, began, now)
	defer bud.cancel()
	shrinker := newFinisher(cfg, rep)
	shrunk := 0
	for i, f := range list {
		v := Violation{
			Check: f.finding.Check, Verdict: string(f.finding.Verdict), Signature: f.finding.Signature(),
			Seed: deref(f.s.Seed, 0), Schedule: f.j, Hits: f.hits, FaultsBefore: len(f.s.Faults),
			FoundAfter: f.at.Seconds(), FoundAtRun: f.atRun, Reason: f.finding.Reason,
		}
		cfg.markKnown(&v, f.finding)
		if cfg.Progress != nil {
			cfg.Progress(Progress{Runs: runs, Found: countHits(list), Distinct: len(list), RunsPerMin: rep.RunsPerMin,
				Phase: fmt.Sprintf("shrink %d/%d", i+1, len(list)), Line: "shrinking " + v.Signature})
		}
		if n := shrinker.coveredBy(f.finding); n > 0 {
			// Its failure is one already shrunk: say so instead of
			// spending ten reruns a step on it again.
			v.CoveredBy, v.FaultsAfter = n, v.FaultsBefore // not shrunk
			v.Cause = rep.Violations[n-1].Cause
			v.Note = fmt.Sprintf("covered by violation %d: its shrunk cause (%s) was at work here too", n, rep.Violations[n-1].ShrunkSignature)
			rep.Violations = append(rep.Violations, v)
			continue
		}
		shrink := !cfg.NoShrink && shrunk < cfg.MaxShrink && ctx.Err() == nil && !bud.over() && cfg.shrinks(f.finding)
		if shrink {
			shrunk++
		}
		if err := shrinker.finish(bud, &v, f, i+1, shrink); err != nil && ctx.Err() == nil {
			rep.Pending = len(list) - i
			return rep, keep(rep, cfg.Out, err)
		}
		if shrink {
			shrinker.referenceOnShrunk(ctx, &v, f.finding)
		}
		rep.Violations = append(rep.Violations, v)
		if cfg.Out != "" && i+1 < len(list) && shrink {
			// Each finished violation is kept at once: its scenario
			// file is written, and the report that points at it.
			rep.Pending = len(list) - i - 1
			rep.Causes = causesOf(rep.Violations)
			if err := rep.Write(cfg.Out); err != nil {
				return rep, err
			}
		}
	}
	if cfg.Out != "" && ctx.Err() == nil {
		if err := shrinker.confirmAndRun(bud, rep.Violations); err != nil && ctx.Err() == nil {
			rep.Causes = causesOf(rep.Violations)
			return rep, keep(rep, cfg.Out, err)
		}
	}
	rep.Pending = 0
	rep.Interrupted = ctx.Err() != nil
	rep.Elapsed = now().Sub(began).Seconds()
	rep.Causes = causesOf(rep.Violations)
	if cfg.Out != "" {
		if err := rep.Write(cfg.Out); err != nil {
			return rep, err
		}
	}
	if rep.Interrupted {
		return rep, ctx.Err()
	}
	return rep, nil
}

// keep writes what rep holds into out (when set) after err ended the
// exploration early, and returns err (with the write's error, if any).
func keep(rep *Report, out string, err error) error {
	if out == "" {
		return err
	}
	if werr := rep.Write(out); werr != nil {
		return fmt.Errorf("%w (and its findings could not be written: %w)", err, werr)
	}
	return err
}

func countHits(list []*found) int {
	n := 0
	for _, f := range list {
		n += f.hits
	}
	return n
}

// sweep runs the shard's schedules on cfg.Workers goroutines until Runs
// are done, For has passed or ctx ends, and returns the violations by
// signature, the number of runs finished and how many of them tested
// nothing.
func sweep(ctx context.Context, cfg Config, sched *scheduler, began time.Time, search time.Duration) (map[string]*found, int, int, error) {
	var (
		mu        sync.Mutex
		table     = map[string]*found{}
		runs      int
		notPlayed int
		hits      int
		errs      []error
		next      = cfg.Shard
		seq       int
		stopped   bool
	)
	now := cfg.clock()
	deadline := time.Time{}
	if search > 0 {
		deadline = began.Add(search)
	}
	total := 0
	if cfg.Runs > 0 {
		total = (cfg.Runs - cfg.Shard + cfg.Shards - 1) / cfg.Shards
	}
	take := func() (int, bool) { // with mu held
		if stopped || ctx.Err() != nil || len(errs) > maxRunErrors ||
			(cfg.Runs > 0 && next >= cfg.Runs) || (!deadline.IsZero() && now().After(deadline)) {
			return 0, false
		}
		j := next
		next += cfg.Shards // this shard's: j mod Shards == Shard
		return j, true
	}
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				j, ok := take()
				mu.Unlock()
				if !ok {
					return
				}
				if cfg.onSchedule != nil {
					cfg.onSchedule(j)
				}
				s, err := sched.schedule(ctx, j)
				if err != nil {
					return // ctx ended while a guided draw waited
				}
				o, err := runOnce(ctx, s, cfg.Algorithm, deref(s.Seed, 0))
				if err == nil && o.Violation() {
					o.Finding = cfg.judge(ctx, s, o.Finding)
				}
				sched.ran(j, s, o, err)
				mu.Lock()
				switch {
				case ctx.Err() != nil:
					// An interrupted run is not a result.
				case errors.Is(err, BadInput):
					// A draw the scenario checks refuse: a generator bug.
					errs = append(errs, fmt.Errorf("%w: schedule %d: %w", sim.ErrHarness, j, err))
					stopped = true
				case err != nil:
					errs = append(errs, fmt.Errorf("schedule %d: %w", j, err))
				default:
					runs++
					if o.NotPlayed {
						notPlayed++
					}
					line := ""
					if o.Violation() {
						hits++
						sig := o.Signature()
						f := table[sig]
						if f == nil {
							seq++
							f = &found{at: now().Sub(began), atRun: runs, foundSeq: seq}
							table[sig] = f
							line = fmt.Sprintf("found %s (schedule %d, after %d runs, %.1fs)", sig, j, runs, f.at.Seconds())
						}
						f.add(j, s, o.Finding)
					}
					if cfg.Progress != nil {
						el := now().Sub(began).Seconds()
						cfg.Progress(Progress{Runs: runs, Total: total, Found: hits, Distinct: len(table),
							RunsPerMin: float64(runs) / max(el, 1e-9) * 60, Phase: "explore", Line: line})
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 && (stopped || len(errs) > maxRunErrors) {
		return table, runs, notPlayed, errors.Join(errs...)
	}
	return table, runs, notPlayed, nil
}

// worldOf describes the schedules' world for the report.
func worldOf(cfg Config) World {
	return World{Clients: cfg.Clients, Nodes: cfg.Nodes, TTL: cfg.TTL.String(), Duration: cfg.Duration.String(),
		Hold: cfg.Hold.String(), MaxFaults: cfg.MaxFaults}
}

// slug makes a file-name-safe piece of a signature.
func slug(parts ...string) string {
	var b []byte
	for _, p := range parts {
		if len(b) > 0 {
			b = append(b, '-')
		}
		for _, r := range p {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				b = append(b, byte(r))
			case r >= 'A' && r <= 'Z':
				b = append(b, byte(r-'A'+'a'))
			default:
				if len(b) > 0 && b[len(b)-1] != '-' {
					b = append(b, '-')
				}
			}
		}
	}
	return string(slices.Clip(b))
}
