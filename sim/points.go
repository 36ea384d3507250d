package sim

// The client loop's own points, where faults can be triggered exactly. The
// designs announce their internal points (lock.Point*) through the same hook.
const (
	PointBeforeAcquire = "before-acquire"
	PointAfterAcquire  = "after-acquire"
	PointAfterCheck    = "after-check" // reached whether or not validity_check is on
	PointAfterEnter    = "after-enter"
	// With nest > 1 only: before each nested acquire, before each inner
	// release (innermost first, inside the critical section) and once all
	// inner holds are released, still inside.
	PointBeforeNestedAcquire = "before-nested-acquire"
	PointBeforeUnwind        = "before-unwind"
	PointAfterUnwind         = "after-unwind"
	PointBeforeExit          = "before-exit"
	PointBeforeRelease       = "before-release"
)

// LoopPoints lists the client loop's points in the order a cycle reaches them.
var LoopPoints = []string{PointBeforeAcquire, PointAfterAcquire, PointBeforeNestedAcquire, PointAfterCheck, PointAfterEnter,
	PointBeforeUnwind, PointAfterUnwind, PointBeforeExit, PointBeforeRelease}

// Access fixes whether a client takes the read or the write lock.
type Access string

const (
	AccessAny   Access = "" // drawn from ReadRatio each cycle
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)
