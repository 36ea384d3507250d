package lock

import (
	"context"

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
