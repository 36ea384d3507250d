package scenarios

import (
	"slices"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// designPoints are the points the designs announce through their hook
// (lock/hook.go). lock exports no list of them, so this one is kept by hand;
// TestPointsCoverLockPackage reads lock's source and fails when a point is
// missing here.
var designPoints = []lock.Point{
	lock.PointBeforeAcquire,
	lock.PointBetweenExistsAndSet,
	lock.PointBetweenSetnxAndExpire,
	lock.PointBetweenGetAndGetset,
	lock.PointBetweenGetsetExpire,
	lock.PointBetweenSetAndIncr,
	lock.PointBeforeRelease,
	lock.PointWatchdogRenew,
	lock.PointWatchdogRenewed,
	lock.PointWatchdogLost,
}

// Points lists every point a trigger may name: the client loop's own
// (sim.LoopPoints, in cycle order), then the designs' internal ones. A
// design reaches only some of the internal points; a trigger on a point the
// design never reaches never fires, and the run says so in its notes.
func Points() []string {
	out := slices.Clone(sim.LoopPoints)
	for _, p := range designPoints {
		if !slices.Contains(out, string(p)) {
			out = append(out, string(p))
		}
	}
	return out
}
