package lock

import (
	"context"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// Point names where a client is (history.Point, one type for the
// designs' points and the simulator's client-loop points). The simulator's
// gate sits behind the hook: a paused client blocks inside it, a crashed
// one gets an error and stops.
type Point = history.Point

// Points lists every point a built-in design may announce (vocab names
// them), in the order of the steps they name. A design reaches only some
// of them; TestPointsAreListed checks that every point a design announces
// is here.
var Points = vocab.DesignPoints()

// Event is what a hook is told.
type Event struct {
	Point Point
	Key   string
	Lease *Lease // set once a lease exists
}

// Hook is called at every point. A non-nil error aborts the operation in
// progress; the simulator returns one when it crashes the client there.
type Hook func(ctx context.Context, ev Event) error

func noHook(context.Context, Event) error { return nil }

// Renewal is one renewal that a design's lock library made on its own
// timers, which the client never asked for: a process design's child
// reports each one after the fact (package adapter's "extended" event).
// Since it is told after the fact, it is no point: no fault fires at it
// and no pause holds it (Options.Renewed, not the hook, receives it).
// The watchdog tells its own renewals of unknown outcome the same way,
// since its points report only the ones that extended the lock or found
// it gone.
type Renewal struct {
	Lease *Lease
	// Sent is no later than when the library sent the renewal, by the
	// client's clock; the zero time when it is not known.
	Sent time.Time
	// Err is nil when the renewal extended the lock: Deadline is then the
	// new end of the lease's validity by the client's clock, and the
	// lease's window already reads so (Lease.Renew). ErrNotHeld: the
	// library found the lock gone; another error: its outcome is unknown.
	// A renewal that did not extend the lock leaves the lease as it was.
	Err      error
	Deadline time.Time
	// TTL is the expiry the renewal set on the nodes, by their clocks; 0
	// when it is not known.
	TTL time.Duration
}
