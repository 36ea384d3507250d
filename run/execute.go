package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// Options are how a scenario run is carried out, not what it tests.
type Options struct {
	// Out is the results root; a run lands in
	// Out/locksim/<scenario>/<stamp>-<design>-s<seed>/ ["results"], and
	// the scenario's links latest-<design> and latest point at it.
	Out string
	// CheckTimeout bounds porcupine [10s]; running out gives verdict unknown.
	CheckTimeout time.Duration
	// Timeout bounds the run as a whole, so that nothing (a node that stops
	// answering, a fault that cannot heal) hangs the harness; past it the run
	// stops like an interrupted one [duration + 1m].
	Timeout time.Duration
	// Servers are the external backend and the toxiproxy server the run
	// uses, if any (scenarios.Servers).
	scenarios.Servers
	// RealTime runs on miniredis in real time. Without it a miniredis run
	// goes in virtual time when ctx carries a vtime.Host (see VirtualTime).
	RealTime bool
	// Pictures decides, from the run's outcome, which of the timeline
	// (PNG and SVG) and check.html its report draws; nil draws them all.
	// Drawing costs more CPU than a run in virtual time, so a caller that
	// makes many runs nobody will open (the matrix's repeats) leaves them
	// out; verdict.json, history.jsonl and summary.md are always written,
	// and `locksim run` of the run's scenario.yaml draws them again.
	Pictures func(Outcome) report.Pictures
	// Zoom names the check whose first witness the timeline zooms on
	// (report.Run.Zoom); empty: the first witness of any check.
	Zoom string
	// NoLinks leaves the scenario's latest links where they are: the
	// caller points them itself (report.UpdateLink), as a matrix does
	// once for a pair's last run instead of once for every run.
	NoLinks bool
}

// VirtualTime reports whether a run of cfg with o goes in virtual time:
// on miniredis in this process (no toxiproxy server), unless o.RealTime,
// and only where ctx carries a vtime.Host to run the bubble.
func (o Options) VirtualTime(ctx context.Context, cfg sim.Config) bool {
	if info, err := lock.Lookup(cfg.Algorithm); err == nil && info.Process {
		return false // a child process lives on the wall clock and on TCP
	}
	backend := cfg.Cluster.Backend
	if backend == "" {
		backend = sim.Defaults().Cluster.Backend
	}
	return !o.RealTime && backend == sim.BackendMiniredis && cfg.Cluster.Toxiproxy == "" &&
		vtime.FromContext(ctx).Valid()
}

// Outcome is one scenario x algorithm run as a caller reports it.
type Outcome struct {
	Scenario  string                   `json:"scenario"`
	Algorithm string                   `json:"algorithm"`
	Verdict   vocab.Verdict            `json:"verdict,omitempty"`
	Checks    map[string]vocab.Verdict `json:"checks,omitempty"`
	// Expected is the expectation in one line ("" when none);
	// AsExpected is scenarios.Expectation.Meets's answer, false too when
	// the run was incomplete or did not play the scenario.
	Expected   string `json:"expected,omitempty"`
	AsExpected bool   `json:"as_expected"`
	// Skipped gives the reason a design was not run (expect: skip).
	Skipped    string   `json:"skipped,omitempty"`
	Dir        string   `json:"dir,omitempty"`
	Incomplete bool     `json:"incomplete,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Unplayed names the faults the scenario needs that never acted and
	// its requirements that did not happen; such a run did not play the
	// scenario and is not as expected.
	Unplayed []string `json:"unplayed,omitempty"`
	// Warnings say the run tested little (checker.Warnings): no acquire
	// succeeded, or a client never acquired the lock. They do not change
	// the verdict or AsExpected.
	Warnings []string `json:"warnings,omitempty"`
}

// Execute runs scenario s for one algorithm, checks the history and writes
// the run directory. Bad input comes back as a *scenarios.Error or wraps
// sim.ErrConfig; a failure of locksim itself wraps sim.ErrHarness. An
// interrupted run (ctx cancelled) still writes its report, marked
// incomplete, and returns an error: it is never presented as a verdict.
func Execute(ctx context.Context, s *scenarios.Scenario, algo string, o Options) (Outcome, error) {
	p, err := s.Plan(algo, o.Servers)
	if err != nil {
		out := Outcome{Scenario: s.Name, Algorithm: algo}
		if p.Expected {
			out.Expected = p.Expect.String()
		}
		return out, err
	}
	return ExecutePlan(ctx, s, p, o)
}

// ExecutePlan is Execute of p, s planned for one design on o.Servers
// (scenarios.Scenario.Plan), for a caller that planned every design
// before running any.
func ExecutePlan(ctx context.Context, s *scenarios.Scenario, p scenarios.Plan, o Options) (Outcome, error) {
	algo := p.Algorithm
	out := Outcome{Scenario: s.Name, Algorithm: algo}
	if p.Expected {
		out.Expected = p.Expect.String()
	}
	if p.Skipped != "" {
		out.Skipped, out.AsExpected = p.Skipped, true
		return out, nil
	}
	cfg := p.Config
	cfg.VirtualTime = o.VirtualTime(ctx, cfg)
	spec, err := cfg.Resolve()
	if err != nil {
		return out, fmt.Errorf("%w: %w", sim.ErrConfig, err)
	}
	if o.Out == "" {
		o.Out = "results"
	}
	if o.CheckTimeout == 0 {
		o.CheckTimeout = 10 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = spec.Config().Duration + time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	notes, prefix, end, err := o.Prepare(rctx)
	if err != nil {
		return out, err
	}
	if prefix != "" {
		spec = spec.WithKeyPrefix(prefix)
	}
	res, runErr := Play(rctx, spec)
	more, err := end(ctx)
	notes = append(notes, more...)
	if runErr == nil {
		runErr = err
	}
	if runErr != nil && ctx.Err() == nil && rctx.Err() != nil {
		runErr = fmt.Errorf("%w: run exceeded its timeout of %v and was stopped", sim.ErrHarness, o.Timeout)
	}
	if res == nil {
		return out, runErr
	}
	if cfg.VirtualTime {
		notes = append(notes, "ran in virtual time: every wait cost no real time, the history's times are the simulation's (--real-time runs it on the wall clock)")
	}
	res.Notes = append(notes, res.Notes...)
	in := checked(res, o.CheckTimeout)
	in.Scenario, in.ScenarioYAML, in.Machine, in.Zoom = s.Name, p.YAML, Machine(), o.Zoom
	in.Unplayed = s.UnplayedView(algo, res.History, in.View)
	checks := scenarios.CheckVerdicts(in.Check)
	// p.Expect is the zero Expectation when nothing is expected.
	in.Misses = p.Expect.Misses(in.Check.Verdict, checks)
	if p.Expected {
		in.Expected = vocab.Verdict(p.Expect.Verdict)
		in.ExpectedChecks = map[string]vocab.Verdict{}
		for k, v := range p.Expect.Checks {
			in.ExpectedChecks[k] = vocab.Verdict(v)
		}
	}
	out.Verdict, out.Checks, out.Notes, out.Incomplete = in.Check.Verdict, checks, res.Notes, res.Incomplete
	out.Warnings, out.AsExpected, out.Unplayed = in.Warnings, in.Met(), in.Unplayed
	if o.Pictures != nil {
		in.Pictures = o.Pictures(out)
	}

	// The report's pictures are drawn while the run's context lasts: an
	// interrupt (or the timeout) while they are drawn stops them, and the
	// run is reported as interrupted, its directory written without them.
	dir, err := report.WriteNewRun(rctx, o.Out, s.Name, res.Started, cfg.Seed, in)
	switch {
	case errors.Is(err, report.ErrInterrupted):
		out.Incomplete, out.AsExpected = true, false
		if runErr == nil {
			runErr = fmt.Errorf("run interrupted while its report was drawn: %w", context.Cause(rctx))
			if ctx.Err() == nil {
				runErr = fmt.Errorf("%w: run exceeded its timeout of %v while its report was drawn, and was stopped", sim.ErrHarness, o.Timeout)
			}
		}
	case err != nil:
		return out, fmt.Errorf("%w: write report: %w", sim.ErrHarness, err)
	}
	out.Dir = dir
	if !out.Incomplete && !o.NoLinks {
		// latest-<design> is the design's newest run, latest the newest
		// of any design (the last one written).
		for _, link := range []string{report.LatestFor(algo), report.LatestLink} {
			if err := report.UpdateLink(filepath.Dir(dir), link, filepath.Base(dir)); err != nil {
				return out, fmt.Errorf("%w: %w", sim.ErrHarness, err)
			}
		}
	}
	if runErr != nil {
		return out, runErr
	}
	return out, nil
}

// checked is res checked (checker.Check, bounded by checkTimeout, keeping
// what check.html draws) as the report takes it, its warnings read once.
func checked(res *sim.Result, checkTimeout time.Duration) report.Run {
	r, ws, v := checker.CheckWithWarningsView(res.History, checkConfig(res, checkTimeout, true), res.Config.Clients)
	return report.Run{
		Algorithm: res.Config.Algorithm,
		Setup:     resultSetup(res), History: res.History, Started: res.Started, Wall: res.Wall,
		Notes: res.Notes, Incomplete: res.Incomplete,
		Check: r, Warnings: ws, View: &v,
	}
}

// Machine describes this machine for reports.
func Machine() string {
	return fmt.Sprintf("%s/%s, %d cores, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}
