package vocab

// Point names where a client is: a step of the simulator's client loop, or
// a step inside a lock design that the design announces through its hook.
// Faults fire on points (the nth time a client reaches one), so scenario
// files name them; one type and one name per point serve both.
type Point string

// The client loop's points.
const (
	PointBeforeAcquire Point = "before-acquire"
	PointAfterAcquire  Point = "after-acquire"
	PointAfterCheck    Point = "after-check" // reached whether or not validity_check is on
	PointAfterEnter    Point = "after-enter"
	// With nest > 1 only: before each nested acquire, before each inner
	// release (innermost first, inside the critical section) and once all
	// inner holds are released, still inside.
	PointBeforeNestedAcquire Point = "before-nested-acquire"
	PointBeforeUnwind        Point = "before-unwind"
	PointAfterUnwind         Point = "after-unwind"
	PointBeforeExit          Point = "before-exit"
	// PointBeforeRelease: the loop is about to call the design's Release.
	PointBeforeRelease Point = "before-release"
)

// The points the designs announce through their hook (PointBeforeAcquire
// too: a design announces it at the start of each attempt).
const (
	PointBetweenExistsAndSet   Point = "between-exists-and-set"
	PointBetweenSetnxAndExpire Point = "between-setnx-and-expire"
	PointBetweenGetAndGetset   Point = "between-get-and-getset"
	PointBetweenGetsetExpire   Point = "between-getset-and-expire"
	PointBetweenSetAndIncr     Point = "between-set-and-incr"
	// PointBeforeReleaseCommand: inside Release, before the release
	// command is sent.
	PointBeforeReleaseCommand Point = "before-release-command"
	PointWaitForUnlock        Point = "wait-for-unlock"
	PointWatchdogRenew        Point = "watchdog-renew"   // before a renewal is sent
	PointWatchdogRenewed      Point = "watchdog-renewed" // the event carries the new lease
	PointWatchdogLost         Point = "watchdog-lost"    // renewal refused: the lease is gone
)

// LoopPoints lists the client loop's points in the order a cycle reaches
// them.
func LoopPoints() []Point {
	return []Point{PointBeforeAcquire, PointAfterAcquire, PointBeforeNestedAcquire, PointAfterCheck, PointAfterEnter,
		PointBeforeUnwind, PointAfterUnwind, PointBeforeExit, PointBeforeRelease}
}

// DesignPoints lists every point a built-in design may announce, in the
// order of the steps they name.
func DesignPoints() []Point {
	return []Point{
		PointBeforeAcquire,
		PointBetweenExistsAndSet,
		PointBetweenSetnxAndExpire,
		PointBetweenGetAndGetset,
		PointBetweenGetsetExpire,
		PointBetweenSetAndIncr,
		PointBeforeReleaseCommand,
		PointWaitForUnlock,
		PointWatchdogRenew,
		PointWatchdogRenewed,
		PointWatchdogLost,
	}
}
