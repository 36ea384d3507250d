package checker

import (
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// defaultTimeout bounds porcupine when Config.Timeout is zero. Histories
// checked here are totally ordered, so porcupine needs far less than this;
// the bound exists so that a pathological history yields Unknown instead of
// hanging a scenario matrix.
const defaultTimeout = 10 * time.Second

// Config tunes Check. The zero value is ready to use.
type Config struct {
	// Fencing says the run used fencing tokens, so the lock must hand out
	// fences (the fencing check is unknown if no ok acquire carries one).
	// Which exclusion model applies follows the history itself: accepted
	// writes when it has writes, enter/exit otherwise (said in the detail
	// when Fencing is set but no write was recorded).
	Fencing bool
	// Timeout bounds porcupine: 0 means 10 s, a negative value means no
	// bound. A timeout makes the exclusion verdict Unknown, never Safe.
	Timeout time.Duration
	// Verbose keeps porcupine's linearization info in the Result so that
	// Visualize can draw it. It costs memory and time on large unsafe
	// histories, so it is off unless a report wants check.html.
	Verbose bool
}

// Result is the verdict of one history, written to verdict.json.
type Result struct {
	// Verdict is unsafe if a safety check (exclusion, claim, fencing) is
	// unsafe, else deadlock if liveness failed, else unknown if the run
	// tested nothing (no lease granted, every check skipped) or any check
	// is unknown, else safe.
	Verdict vocab.Verdict `json:"verdict"`
	// Reason says why the verdict is unknown.
	Reason string `json:"reason,omitempty"`
	// TestedNothing: the verdict is unknown because the run had nothing to
	// judge (no lease granted, every check skipped), not because a check
	// could not decide.
	TestedNothing bool `json:"tested_nothing,omitempty"`
	// Checks holds exclusion, claim, fencing and liveness, in that order.
	Checks []CheckResult `json:"checks"`
	// SweepAgrees is false only when porcupine and its cross-check (the
	// exact sweep for exclusion, the window computation for the claim)
	// contradicted each other: a bug in locksim, reported as unknown.
	SweepAgrees bool `json:"sweep_agrees"`
	// Ops is the number of operations in the history.
	Ops int `json:"ops"`
	// Elapsed is how long Check took, for the benchmark tables.
	Elapsed time.Duration `json:"elapsed"`

	// info is porcupine's linearization data, kept only with
	// Config.Verbose, for Visualize.
	info *porcupine.LinearizationInfo
	// fenced says which exclusion model produced info.
	fenced bool
}

// CheckResult is the verdict of one named check.
type CheckResult struct {
	Name    string        `json:"name"`
	Verdict vocab.Verdict `json:"verdict"`
	// Detail says in one line what was checked and what was found, or why
	// the check was skipped or could not decide.
	Detail string `json:"detail"`
	// Witnesses show the violation; every unsafe check has at least one.
	// They are capped (see maxWitnesses); Detail gives the full count.
	Witnesses []Witness `json:"witnesses,omitempty"`
}

// Witness is one violation: two clients whose intervals on Key overlapped
// (or whose tokens went backwards), and the faults active around it.
type Witness struct {
	Check string   `json:"check"`
	Key   string   `json:"key"`
	A     Interval `json:"a"`
	B     Interval `json:"b"`
	// Faults are the fault windows that intersect the span from the
	// earlier interval's start to the end of the overlap. The span starts
	// early on purpose: the fault that caused an overlap (a GC pause that
	// made a client overstay its lease) has often ended by the time the
	// overlap begins.
	Faults []FaultWindow `json:"faults,omitempty"`
	Note   string        `json:"note,omitempty"`
}

// Interval is one client's section (at the resource) or lease (its claim),
// in true time since the run's start.
type Interval struct {
	Client int           `json:"client"`
	Token  string        `json:"token,omitempty"`
	Fence  int64         `json:"fence,omitempty"`
	Start  time.Duration `json:"start"`
	End    time.Duration `json:"end"`
}

// FaultWindow is a fault record of the history: when it started and
// stopped, and its printable description.
type FaultWindow struct {
	ID    int           `json:"id"`
	Desc  string        `json:"desc"`
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	// Target is whom the fault hit, when its record says.
	Target *history.Target `json:"-"`
}

// Check returns the named check ("exclusion", "claim", "fencing",
// "liveness"), or a zero CheckResult when there is none of that name.
func (r Result) Check(name string) CheckResult {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return CheckResult{}
}
