package explore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vtime"
)

// ErrNoHost: explorations run in virtual time and need a vtime.Host in
// their context (vtime.Main in a program, vtime.ForTest in a test).
var ErrNoHost = vtime.ErrNoHost

// maxRunErrors: past this many runs that failed to play (a harness
// failure, not a verdict), the exploration stops with an error.
const maxRunErrors = 5

// found is the first schedule of a signature and how often it came up.
type found struct {
	j        int
	s        *scenarios.Scenario
	finding  Finding
	hits     int
	at       time.Duration // wall time since the start when first seen
	atRun    int           // runs finished when first seen
	foundSeq int           // order of discovery
}

// Explore runs cfg's schedules (this shard's), keeps the violating runs by
// signature, shrinks the first schedule of each (up to MaxShrink), replays
// the results and, when cfg.Out is set, writes them there. ctx must carry a
// vtime.Host. A cancelled ctx stops the exploration: the Report then has
// what was found so far (not shrunk), Interrupted is set, and it is
// written too; the error is ctx's.
func Explore(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
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
	began := time.Now()
	points, err := Points(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Algorithm: cfg.Algorithm, Seed: cfg.Seed, Shard: fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards),
		Kinds: cfg.Kinds, Points: points, World: worldOf(cfg), Violations: []Violation{},
		Reference: cfg.reference(), Strict: cfg.Strict,
	}
	table, runs, notPlayed, runErr := sweep(ctx, cfg, points, began)
	rep.Runs, rep.NotPlayed = runs, notPlayed
	rep.Elapsed = time.Since(began).Seconds()
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
	sort.Slice(list, func(a, b int) bool { return list[a].foundSeq < list[b].foundSeq })
	ownFirst(list)
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
			v.Note = fmt.Sprintf("covered by violation %d: its shrunk cause (%s) was at work here too", n, rep.Violations[n-1].ShrunkSignature)
			rep.Violations = append(rep.Violations, v)
			continue
		}
		shrink := !cfg.NoShrink && shrunk < cfg.MaxShrink && ctx.Err() == nil && cfg.shrinks(f.finding)
		if shrink {
			shrunk++
		}
		if err := shrinker.finish(ctx, &v, f, i+1, shrink); err != nil && ctx.Err() == nil {
			rep.Pending = len(list) - i
			return rep, keep(rep, cfg.Out, err)
		}
		if shrink {
			shrinker.referenceOnShrunk(ctx, &v, f.finding)
		}
		rep.Violations = append(rep.Violations, v)
		if cfg.Out != "" && i+1 < len(list) {
			// Each finished violation is kept at once: its scenario
			// file is written, and the report that points at it.
			rep.Pending = len(list) - i - 1
			if err := rep.Write(cfg.Out); err != nil {
				return rep, err
			}
		}
	}
	rep.Pending = 0
	rep.Interrupted = ctx.Err() != nil
	rep.Elapsed = time.Since(began).Seconds()
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
func sweep(ctx context.Context, cfg Config, points []string, began time.Time) (map[string]*found, int, int, error) {
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
	deadline := time.Time{}
	if cfg.For > 0 {
		deadline = began.Add(cfg.For)
	}
	total := 0
	if cfg.Runs > 0 {
		total = (cfg.Runs - cfg.Shard + cfg.Shards - 1) / cfg.Shards
	}
	take := func() (int, bool) { // with mu held
		if stopped || ctx.Err() != nil || len(errs) > maxRunErrors ||
			(cfg.Runs > 0 && next >= cfg.Runs) || (!deadline.IsZero() && time.Now().After(deadline)) {
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
				s := Generate(cfg, points, j)
				o, err := runOnce(ctx, s, cfg.Algorithm, deref(s.Seed, 0))
				if err == nil && o.Violation() {
					o.Finding = cfg.judge(ctx, s, o.Finding)
				}
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
							f = &found{j: j, s: s, finding: o.Finding, at: time.Since(began), atRun: runs, foundSeq: seq}
							table[sig] = f
							line = fmt.Sprintf("found %s (schedule %d, after %d runs, %.1fs)", sig, j, runs, f.at.Seconds())
						} else if j < f.j { // the lowest index represents it
							f.j, f.s, f.finding = j, s, o.Finding
						}
						f.hits++
					}
					if cfg.Progress != nil {
						el := time.Since(began).Seconds()
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
