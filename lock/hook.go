package lock

import (
	"context"

	"github.com/locksim/locksim/history"
)

// Point names where a client is (history.Point, one type for the
// designs' points and the simulator's client-loop points). The simulator's
// gate sits behind the hook: a paused client blocks inside it, a crashed
// one gets an error and stops.
type Point = history.Point

// Points announced by the designs themselves. The simulator adds its own
// client-loop points (after-acquire, after-check, ...).
const (
	PointBeforeAcquire         Point = "before-acquire"
	PointBetweenExistsAndSet   Point = "between-exists-and-set"
	PointBetweenSetnxAndExpire Point = "between-setnx-and-expire"
	PointBetweenGetAndGetset   Point = "between-get-and-getset"
	PointBeforeRelease         Point = "before-release-command"
	PointWatchdogRenew         Point = "watchdog-renew"   // before a renewal is sent
	PointWatchdogRenewed       Point = "watchdog-renewed" // Event.Lease carries the new window
	PointWatchdogLost          Point = "watchdog-lost"    // renewal refused: the lease is gone
	PointBetweenGetsetExpire   Point = "between-getset-and-expire"
	PointBetweenSetAndIncr     Point = "between-set-and-incr"
)

// Points lists every point a design may announce, in the order of the
// steps they name. A design reaches only some of them; TestPointsAreListed
// checks that every point a design announces is here.
var Points = []Point{
	PointBeforeAcquire,
	PointBetweenExistsAndSet,
	PointBetweenSetnxAndExpire,
	PointBetweenGetAndGetset,
	PointBetweenGetsetExpire,
	PointBetweenSetAndIncr,
	PointBeforeRelease,
	PointWaitForUnlock,
	PointWatchdogRenew,
	PointWatchdogRenewed,
	PointWatchdogLost,
}

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
