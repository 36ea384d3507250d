package run

import (
	"context"
	"github.com/locksim/locksim/vocab"

	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/regfile"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Saved is a run directory as it is read back to be checked again: its
// verdict.json and its history.
type Saved struct {
	Dir     string
	File    report.VerdictFile
	History history.History
}

// BadDirError is a run directory that cannot be checked again because of
// what it holds (not a run directory, more than a run makes): the user's
// input, not locksim's failure. It reads as the error it wraps.
type BadDirError struct{ Err error }

func (e *BadDirError) Error() string { return e.Err.Error() }
func (e *BadDirError) Unwrap() error { return e.Err }

// bad marks err as the directory's fault.
func bad(err error) error { return &BadDirError{err} }

// ReadDir reads what a re-check takes from dir, within what this
// machine can check (sim.HistoryLimit): verdict.json and history.jsonl
// must be regular files (a FIFO would block the read), the saved client
// count and every client the history names within the checking bound
// (derived from memory, not run's bound of a goroutine per client), the
// history no larger than this machine's memory budget for a run, with no
// more operations than fit it. Bad input is a *BadDirError naming the
// file and the limit; an interruption (ctx) while reading is any other
// error.
func ReadDir(ctx context.Context, dir string) (Saved, error) {
	vpath := filepath.Join(dir, report.FileVerdict)
	if err := regfile.Check(vpath); err != nil {
		return Saved{}, bad(fmt.Errorf("%s is not a run directory: %w", dir, err))
	}
	saved, err := report.ReadVerdict(vpath)
	if err != nil {
		return Saved{}, bad(fmt.Errorf("%s is not a run directory: %w", dir, err))
	}
	lim := sim.HistoryLimit()
	if n := saved.Config.Clients; n != 0 {
		if err := lim.CheckClients(n); err != nil {
			return Saved{}, bad(fmt.Errorf("%s: %w", vpath, err))
		}
	}
	hpath := filepath.Join(dir, report.FileHistory)
	f, fi, err := regfile.Open(hpath)
	if err != nil {
		return Saved{}, bad(fmt.Errorf("%s: %w", dir, err))
	}
	defer f.Close()
	if err := lim.CheckSize(fi.Size()); err != nil {
		return Saved{}, bad(fmt.Errorf("%s: %w", hpath, err))
	}
	h, err := history.ReadJSONLBounded(ctx, f, history.Bounds{Ops: lim.Ops, Clients: lim.Clients})
	switch {
	case err == nil:
		return Saved{Dir: dir, File: saved, History: h}, nil
	case ctx.Err() != nil:
		return Saved{}, fmt.Errorf("reading %s interrupted: %w", hpath, context.Cause(ctx))
	}
	return Saved{}, bad(fmt.Errorf("%s: %w", hpath, err))
}

// Expectation is what the run expected, as verdict.json recorded it (the
// zero Expectation when it expected nothing).
func (s Saved) Expectation() scenarios.Expectation {
	e := scenarios.Expectation{Verdict: vocab.Verdict(s.File.Expected)}
	for name, want := range s.File.ExpectedChecks {
		if e.Checks == nil {
			e.Checks = map[string]vocab.Verdict{}
		}
		e.Checks[name] = vocab.Verdict(want)
	}
	return e
}

// Recheck is a saved history checked again.
type Recheck struct {
	Result   checker.Result
	Checks   map[string]vocab.Verdict
	Warnings []string
	// Scenario is the scenario the run saved (scenario.yaml); Unplayed
	// says which faults it needs never acted and which of its
	// requirements did not happen (scenarios.Scenario.Unplayed).
	Scenario *scenarios.Scenario
	Unplayed []string
	// AsExpected: the run played its scenario and the new verdict meets
	// the saved expectation.
	AsExpected bool
}

// Check checks the history again, the checker bounded by bound, and
// collects its warnings; it returns the context's error as soon as ctx
// ends. The checker takes no context: on an interruption its goroutine is
// left to the caller, whose process exits.
func (s Saved) Check(ctx context.Context, bound time.Duration) (Recheck, error) {
	type answer struct {
		r        checker.Result
		warnings []string
	}
	if err := ctx.Err(); err != nil {
		return Recheck{}, context.Cause(ctx)
	}
	h, cfg := s.History, checker.Config{Fencing: s.File.Config.Fencing, Timeout: bound}
	done := make(chan answer, 1)
	go func() {
		r, warnings := checker.CheckWithWarnings(h, cfg, s.File.Config.Clients)
		done <- answer{r, warnings}
	}()
	select {
	case a := <-done:
		return Recheck{Result: a.r, Checks: scenarios.CheckVerdicts(a.r), Warnings: a.warnings}, nil
	case <-ctx.Done():
		return Recheck{}, context.Cause(ctx)
	}
}

// Judge says whether the run played the scenario it saved, read from the
// history against the scenario (which faults it needs), and whether r
// meets the saved expectation. A scenario.yaml that does not load is a
// *BadDirError.
func (s Saved) Judge(r *Recheck) error {
	sc, err := scenarios.LoadFile(filepath.Join(s.Dir, report.FileScenario))
	if err != nil {
		return bad(fmt.Errorf("%s: %w", s.Dir, err))
	}
	r.Scenario = sc
	r.Unplayed = sc.Unplayed(s.File.Algorithm, s.History)
	r.AsExpected = len(r.Unplayed) == 0 && s.Expectation().Meets(r.Result.Verdict, r.Checks)
	return nil
}

// Mismatch is why the re-check does not confirm the run, nil when it
// does: a verdict other than the saved one, a scenario the run did not
// play, a verdict the run did not expect.
func (s Saved) Mismatch(r Recheck) error {
	switch {
	case r.Result.Verdict != s.File.Verdict:
		return fmt.Errorf("re-check gives %s, the run saved %s", r.Result.Verdict, s.File.Verdict)
	case len(r.Unplayed) > 0:
		return fmt.Errorf("the run did not play %s: %s", r.Scenario.Name, strings.Join(r.Unplayed, "; "))
	case !r.AsExpected:
		return fmt.Errorf("verdict %s is not what the run expected (%s)", r.Result.Verdict, s.File.Expected)
	}
	return nil
}
