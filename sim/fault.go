package sim

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/history"
)

// Fault is one nemesis action: a small printable value that starts a fault
// in the world and heals it again. Stop must undo Start and be safe to call
// once after Start returned without error.
type Fault interface {
	fmt.Stringer
	Start(w *World) error
	Stop(w *World) error
}

// Targeter is implemented by faults that say whom they hit; the history
// keeps it on the fault's record (Op.Target), so that a chart can draw the
// fault on the rows it hit.
type Targeter interface {
	Target() history.Target
}

// WorldTargeter is a Targeter whose target depends on the world it acts
// in (a failover: whether Sentinel promotes or the harness does).
type WorldTargeter interface {
	TargetIn(w *World) history.Target
}

// targetOf is f's target, or nil when it does not say.
func targetOf(f Fault) *history.Target {
	if t, ok := f.(Targeter); ok {
		tg := t.Target()
		return &tg
	}
	return nil
}

// targetIn is f's target in w, or nil when it does not say.
func targetIn(f Fault, w *World) *history.Target {
	if t, ok := f.(WorldTargeter); ok {
		tg := t.TargetIn(w)
		return &tg
	}
	return targetOf(f)
}

// Validator is implemented by faults that can reject a configuration before
// the run starts (an index out of range, a backend that lacks a capability).
type Validator interface {
	Validate(cfg Config) error
}

// Trigger fires either at a true time since the run's start, or the Nth time
// (1-based) client Client reaches point Point; with AnyClient, the Nth time
// any client does (the clients' visits counted together, in the order they
// happen). A fault at any client's point plays the same whichever client
// the lock favours: a node killed at client 0's first critical section
// never dies in a run where client 1 keeps the lock and client 0 never gets
// in, and one killed at the first critical section of any client always
// does.
type Trigger struct {
	At        time.Duration `json:"at,omitempty"`
	Client    int           `json:"client,omitempty"`
	AnyClient bool          `json:"any_client,omitempty"`
	Point     history.Point `json:"point,omitempty"`
	Nth       int           `json:"nth,omitempty"`
}

// OnPoint reports whether the trigger waits for a point rather than a time.
func (t Trigger) OnPoint() bool { return t.Point != "" }

func (t Trigger) String() string {
	switch {
	case t.OnPoint() && t.AnyClient:
		return fmt.Sprintf("any client at %s #%d", t.Point, max(t.Nth, 1))
	case t.OnPoint():
		return fmt.Sprintf("client %d at %s #%d", t.Client, t.Point, max(t.Nth, 1))
	}
	return fmt.Sprintf("at %v", t.At)
}

// Planned is a fault with its schedule. Without For or Until the fault lasts
// until the clients stop, then heals.
type Planned struct {
	Fault Fault
	Start Trigger
	For   time.Duration
	Until *Trigger
}

func (p Planned) String() string {
	s := fmt.Sprintf("%s (%s", p.Fault, p.Start)
	if p.For > 0 {
		s += fmt.Sprintf(", for %v", p.For)
	}
	if p.Until != nil {
		s += ", until " + p.Until.String()
	}
	return s + ")"
}
