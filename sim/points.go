package sim

// The client loop's own points, where faults can be triggered exactly. The
// designs announce their internal points (lock.Point*) through the same hook.
const (
	PointBeforeAcquire = "before-acquire"
	PointAfterAcquire  = "after-acquire"
	PointAfterCheck    = "after-check" // reached whether or not validity_check is on
	PointAfterEnter    = "after-enter"
	PointBeforeExit    = "before-exit"
	PointBeforeRelease = "before-release"
)

// LoopPoints lists the client loop's points in the order a cycle reaches them.
var LoopPoints = []string{PointBeforeAcquire, PointAfterAcquire, PointAfterCheck, PointAfterEnter, PointBeforeExit, PointBeforeRelease}
