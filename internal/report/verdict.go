package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// VerdictFile is verdict.json: what the checker decided about one run, what was
// expected of it, and enough of the run to read the verdict without the
// other files. Times inside witnesses are nanoseconds since the run's
// start, as in history.jsonl.
type VerdictFile struct {
	Scenario  string        `json:"scenario"`
	Algorithm string        `json:"algorithm"`
	Verdict   vocab.Verdict `json:"verdict"`
	// Reason says why the verdict is unknown.
	Reason string `json:"reason,omitempty"`
	// Expected is "" when nothing was expected (then only safe is as
	// expected), else safe, unsafe, deadlock or any.
	Expected vocab.Verdict `json:"expected"`
	// ExpectedChecks are expected verdicts of single checks, by name.
	ExpectedChecks map[string]vocab.Verdict `json:"expected_checks,omitempty"`
	// AsExpected: the verdict and every expected check matched, and the
	// run was complete (an interrupted run is never as expected).
	AsExpected bool `json:"as_expected"`
	// Checks are exclusion, claim, fencing and liveness, by name.
	Checks      map[string]Check `json:"checks"`
	SweepAgrees bool             `json:"sweep_agrees"`
	Ops         int              `json:"ops"`
	// CheckElapsedMS is how long the checker took.
	CheckElapsedMS float64 `json:"check_elapsed_ms"`
	// Notes: emulations, triggers that never fired, faults that failed.
	Notes []string `json:"notes"`
	// Unplayed says why the run did not play its scenario (a fault it
	// needs did not act, a requirement did not happen:
	// scenarios.Scenario.Unplayed); such a run is never as expected.
	Unplayed []string `json:"unplayed,omitempty"`
	// Warnings say what a reader must know before trusting the run
	// (checker.Warnings): an error the harness met starting or healing a
	// fault, a fault still on at the run's end, a run that tested little.
	// They do not change the verdict.
	Warnings []string `json:"warnings"`
	// Incomplete: the run was interrupted; the verdict covers a partial
	// history and is not a verdict on the design.
	Incomplete bool      `json:"incomplete"`
	Seed       uint64    `json:"seed"`
	Started    time.Time `json:"started"`
	WallMS     float64   `json:"wall_ms"`
	Machine    string    `json:"machine,omitempty"`
	// Config is the run as resolved (history.Setup).
	Config history.Setup `json:"config"`
}

// Check is one named check in verdict.json.
type Check struct {
	Verdict   vocab.Verdict     `json:"verdict"`
	Detail    string            `json:"detail"`
	Witnesses []checker.Witness `json:"witnesses,omitempty"`
}

// newVerdictFile builds verdict.json's value.
func newVerdictFile(in Run) VerdictFile {
	r := in.Check
	v := VerdictFile{
		Scenario:       in.Scenario,
		Algorithm:      in.Algorithm,
		Verdict:        r.Verdict,
		Reason:         r.Reason,
		Expected:       in.Expected,
		ExpectedChecks: in.ExpectedChecks,
		AsExpected:     in.Met(),
		Checks:         map[string]Check{},
		SweepAgrees:    r.SweepAgrees,
		Ops:            r.Ops,
		CheckElapsedMS: durationMS(r.Elapsed),
		Notes:          append([]string{}, in.Notes...),
		Unplayed:       in.Unplayed,
		Warnings:       append([]string{}, in.Warnings...),
		Incomplete:     in.Incomplete,
		Seed:           in.Setup.Seed,
		Started:        in.Started,
		WallMS:         durationMS(in.Wall),
		Machine:        in.Machine,
		Config:         in.Setup,
	}
	if v.Config.Faults == nil {
		v.Config.Faults = []string{}
	}
	for _, c := range r.Checks {
		v.Checks[c.Name] = Check{Verdict: c.Verdict, Detail: c.Detail, Witnesses: c.Witnesses}
	}
	return v
}

func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ReadVerdict reads a verdict.json written by WriteRun.
func ReadVerdict(path string) (VerdictFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return VerdictFile{}, err
	}
	var v VerdictFile
	if err := json.Unmarshal(b, &v); err != nil {
		return VerdictFile{}, fmt.Errorf("%s: %w", path, err)
	}
	if v.Verdict == "" {
		return VerdictFile{}, fmt.Errorf("%s: no verdict", path)
	}
	return v, nil
}
