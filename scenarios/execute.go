package scenarios

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/internal/run"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vtime"
)

// RunOptions are how a scenario run is carried out, not what it tests.
type RunOptions struct {
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
	// Addrs, when set, run the scenario on the external backend: the Redis
	// masters at these host:port addresses, in node order, in place of the
	// scenario's own backend. A scenario that sets nodes must set as many
	// as there are addresses; one that leaves nodes out gets one node per
	// address. What needs process control (kill-node, node clocks,
	// failover, replicas, persistence) is refused, naming it. A run's keys
	// are its own (under "locksim:<run id>:", so that an earlier run's, a
	// key a crash left without TTL or a fencing counter, cannot decide
	// it) and are deleted after it; while it runs it holds the guard key
	// GuardKey on every server, and a second run that finds it refuses to
	// start (ErrServersBusy).
	Addrs []string
	// Toxiproxy is the host:port of a toxiproxy server's API: the run's
	// proxies (and so its network faults) are made there instead of in
	// this process. Valid on every backend; the server must reach the
	// nodes' addresses.
	Toxiproxy string
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
}

// VirtualTime reports whether a run of cfg with o goes in virtual time:
// on miniredis in this process (no toxiproxy server), unless o.RealTime,
// and only where ctx carries a vtime.Host to run the bubble.
func (o RunOptions) VirtualTime(ctx context.Context, cfg sim.Config) bool {
	cfg = cfg.WithDefaults()
	if info, err := lock.Lookup(cfg.Algorithm); err == nil && info.Process {
		return false // a child process lives on the wall clock and on TCP
	}
	return !o.RealTime && cfg.Cluster.Backend == sim.BackendMiniredis && cfg.Cluster.Toxiproxy == "" &&
		vtime.FromContext(ctx).Valid()
}

// Outcome is one scenario x algorithm run as a caller reports it.
type Outcome struct {
	Scenario  string                     `json:"scenario"`
	Algorithm string                     `json:"algorithm"`
	Verdict   checker.Verdict            `json:"verdict,omitempty"`
	Checks    map[string]checker.Verdict `json:"checks,omitempty"`
	// Expected is the expectation in one line ("" when none);
	// AsExpected is Expectation.Meets's answer, false too when the run was
	// incomplete or did not play the scenario.
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
// the run directory. Bad input comes back as a *Error or wraps sim.ErrConfig;
// a failure of locksim itself wraps sim.ErrHarness. An interrupted run
// (ctx cancelled) still writes its report, marked incomplete, and returns an
// error: it is never presented as a verdict.
func Execute(ctx context.Context, s *Scenario, algo string, o RunOptions) (Outcome, error) {
	out := Outcome{Scenario: s.Name, Algorithm: algo}
	exp, hasExp := s.Expect(algo)
	if hasExp {
		out.Expected = exp.String()
		if exp.Verdict == Skip {
			// what the backend cannot do comes before the design's skip
			if err := s.BackendRefuses(algo, o); err != nil {
				return out, err
			}
			out.Skipped, out.AsExpected = exp.Reason, true
			return out, nil
		}
	}
	cfg, err := s.RunConfig(algo, o)
	if err != nil {
		return out, err
	}
	cfg.VirtualTime = o.VirtualTime(ctx, cfg)
	resolved, err := s.resolvedFor(algo, o)
	if err != nil {
		return out, err
	}
	if o.Out == "" {
		o.Out = "results"
	}
	if o.CheckTimeout == 0 {
		o.CheckTimeout = 10 * time.Second
	}

	if o.Timeout == 0 {
		o.Timeout = cfg.WithDefaults().Duration + time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	notes, lease, err := o.prepare(rctx)
	if err != nil {
		return out, err
	}
	if lease != nil {
		cfg.KeyPrefix = lease.prefix
	}
	res, runErr := sim.Run(rctx, cfg)
	if lease != nil {
		more, err := lease.end(ctx)
		notes = append(notes, more...)
		if runErr == nil {
			runErr = err
		}
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
	cr := checker.Check(res.History, checker.Config{Fencing: res.Config.Fencing(), Timeout: o.CheckTimeout, Verbose: true})
	out.Verdict, out.Checks, out.Notes, out.Incomplete = cr.Verdict, CheckVerdicts(cr), res.Notes, res.Incomplete
	out.Warnings = checker.Warnings(res.History, res.Config.Clients)
	in := report.Run{
		Scenario: s.Name, Algorithm: algo, ScenarioYAML: resolved,
		Setup: run.ResultSetup(res), History: res.History, Started: res.Started, Wall: res.Wall,
		Notes: res.Notes, Incomplete: res.Incomplete, Warnings: out.Warnings,
		Check: cr, Machine: Machine(), Zoom: o.Zoom,
		Unplayed: s.Unplayed(algo, res.History),
		// exp is the zero Expectation when nothing is expected.
		Misses: exp.Misses(out.Verdict, out.Checks),
	}
	if hasExp {
		in.Expected = string(exp.Verdict)
		in.ExpectedChecks = map[string]string{}
		for k, v := range exp.Checks {
			in.ExpectedChecks[k] = string(v)
		}
	}
	out.AsExpected, out.Unplayed = in.Met(), in.Unplayed
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
	if !out.Incomplete {
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

// Machine describes this machine for reports.
func Machine() string {
	return fmt.Sprintf("%s/%s, %d cores, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}

// SavedExpectation is the expectation a run directory's verdict.json
// recorded, as a typed value for Misses (the zero Expectation when the run
// expected nothing).
func SavedExpectation(v report.VerdictFile) Expectation {
	e := Expectation{Verdict: Verdict(v.Expected)}
	for name, want := range v.ExpectedChecks {
		if e.Checks == nil {
			e.Checks = map[string]Verdict{}
		}
		e.Checks[name] = Verdict(want)
	}
	return e
}

// IsBadInput reports whether err is the user's input, not locksim's failure.
func IsBadInput(err error) bool {
	var se *Error
	return errors.As(err, &se) || errors.Is(err, sim.ErrConfig)
}
