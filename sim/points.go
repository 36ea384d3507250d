package sim

import "github.com/locksim/locksim/history"

// The client loop's own points, where faults can be triggered exactly. The
// designs announce their internal points (lock.Points) through the same
// hook, with the same type.
const (
	PointBeforeAcquire history.Point = "before-acquire"
	PointAfterAcquire  history.Point = "after-acquire"
	PointAfterCheck    history.Point = "after-check" // reached whether or not validity_check is on
	PointAfterEnter    history.Point = "after-enter"
	// With nest > 1 only: before each nested acquire, before each inner
	// release (innermost first, inside the critical section) and once all
	// inner holds are released, still inside.
	PointBeforeNestedAcquire history.Point = "before-nested-acquire"
	PointBeforeUnwind        history.Point = "before-unwind"
	PointAfterUnwind         history.Point = "after-unwind"
	PointBeforeExit          history.Point = "before-exit"
	PointBeforeRelease       history.Point = "before-release"
)

// LoopPoints lists the client loop's points in the order a cycle reaches them.
var LoopPoints = []history.Point{PointBeforeAcquire, PointAfterAcquire, PointBeforeNestedAcquire, PointAfterCheck, PointAfterEnter,
	PointBeforeUnwind, PointAfterUnwind, PointBeforeExit, PointBeforeRelease}

// Access fixes whether a client takes the read or the write lock.
type Access string

const (
	AccessAny   Access = "" // drawn from ReadRatio each cycle
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)
