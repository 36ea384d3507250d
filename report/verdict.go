package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Verdict is verdict.json: what the checker decided about one run, what was
// expected of it, and enough of the run to read the verdict without the
// other files. Times inside witnesses are nanoseconds since the run's
// start, as in history.jsonl.
type Verdict struct {
	Scenario  string        `json:"scenario"`
	Algorithm string        `json:"algorithm"`
	Verdict   vocab.Verdict `json:"verdict"`
	// Reason says why the verdict is unknown.
	Reason string `json:"reason,omitempty"`
	// Expected is "" when nothing was expected (then only safe is as
	// expected), else safe, unsafe, deadlock or any.
	Expected string `json:"expected"`
	// ExpectedChecks are expected verdicts of single checks, by name.
	ExpectedChecks map[string]string `json:"expected_checks,omitempty"`
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
	Config     Config    `json:"config"`
}

// Check is one named check in verdict.json.
type Check struct {
	Verdict   vocab.Verdict     `json:"verdict"`
	Detail    string            `json:"detail"`
	Witnesses []checker.Witness `json:"witnesses,omitempty"`
}

// Config is the run's configuration as verdict.json records it: plain
// data, durations in Go syntax ("500ms") as in scenario.yaml.
type Config struct {
	Algorithm string `json:"algorithm"`
	Backend   string `json:"backend"`
	// Server is the server the redis backend ran and its version, as
	// its INFO said ("redis 7.0.15", "valkey 8.0.1").
	Server      string   `json:"server,omitempty"`
	Nodes       int      `json:"nodes"`
	Persistence string   `json:"persistence,omitempty"`
	Clients     int      `json:"clients"`
	Keys        int      `json:"keys"`
	ReadRatio   float64  `json:"read_ratio,omitempty"`
	TTL         Duration `json:"ttl"`
	Hold        Duration `json:"hold"`
	Think       Duration `json:"think"`
	Duration    Duration `json:"duration"`
	Drift       float64  `json:"drift"`
	// Retries counts attempts after the first; absent: until the run ends.
	Retries       *int     `json:"retries,omitempty"`
	RetryDelay    Duration `json:"retry_delay"`
	NodeTimeout   Duration `json:"node_timeout"`
	Watchdog      bool     `json:"watchdog"`
	ValidityCheck bool     `json:"validity_check"`
	Fencing       bool     `json:"fencing"`
	// Faults are the planned faults, as printed (kind, target, schedule).
	Faults []string `json:"faults"`
}

// Duration is a time.Duration written in Go syntax ("1.5s") in JSON.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string like \"500ms\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// newVerdict builds verdict.json's value.
func newVerdict(in Run) Verdict {
	r, res := in.Check, in.Sim
	v := Verdict{
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
		Notes:          append([]string{}, res.Notes...),
		Unplayed:       in.Unplayed,
		Warnings:       append([]string{}, in.warnings()...),
		Incomplete:     res.Incomplete,
		Seed:           res.Config.Seed,
		Started:        res.Started,
		WallMS:         durationMS(res.Wall),
		Machine:        in.Machine,
		Config:         newConfig(res.Config),
	}
	v.Config.Server = res.Server.String()
	for _, c := range r.Checks {
		v.Checks[c.Name] = Check{Verdict: c.Verdict, Detail: c.Detail, Witnesses: c.Witnesses}
	}
	return v
}

func newConfig(c sim.Config) Config {
	out := Config{
		Algorithm:     c.Algorithm,
		Backend:       string(c.Cluster.Backend),
		Nodes:         c.Cluster.Nodes,
		Persistence:   string(c.Cluster.Persistence),
		Clients:       c.Clients,
		Keys:          c.Keys,
		ReadRatio:     c.ReadRatio,
		TTL:           Duration(c.Options.TTL),
		Hold:          Duration(c.Hold),
		Think:         Duration(c.Think),
		Duration:      Duration(c.Duration),
		Drift:         c.Options.Drift,
		RetryDelay:    Duration(c.Options.Retry.Interval),
		NodeTimeout:   Duration(c.Options.NodeTimeout),
		Watchdog:      c.Options.Watchdog,
		ValidityCheck: c.Options.ValidityCheck,
		Fencing:       c.Fencing(),
		Faults:        []string{},
	}
	if n := c.Options.Retry.MaxTries; n > 0 {
		out.Retries = &[]int{n - 1}[0]
	}
	for _, f := range c.Faults {
		out.Faults = append(out.Faults, f.String())
	}
	return out
}

func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ReadVerdict reads a verdict.json written by WriteRun.
func ReadVerdict(path string) (Verdict, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Verdict{}, err
	}
	var v Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		return Verdict{}, fmt.Errorf("%s: %w", path, err)
	}
	if v.Verdict == "" {
		return Verdict{}, fmt.Errorf("%s: no verdict", path)
	}
	return v, nil
}
