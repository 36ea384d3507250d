package sim

import "github.com/locksim/locksim/history"

// The history types live in package history, the leaf that the checker and
// the reports read; sim records them. These names keep the simulator's
// own code short.
type (
	Op      = history.Op
	Kind    = history.Kind
	Outcome = history.Outcome
	History = history.History
)

const (
	KindAcquire  = history.KindAcquire
	KindCheck    = history.KindCheck
	KindExtend   = history.KindExtend
	KindRelease  = history.KindRelease
	KindProbe    = history.KindProbe
	KindWait     = history.KindWait
	KindEnter    = history.KindEnter
	KindExit     = history.KindExit
	KindWrite    = history.KindWrite
	KindFault    = history.KindFault
	KindClock    = history.KindClock
	KindSentinel = history.KindSentinel
	KindRedirect = history.KindRedirect
	KindNode     = history.KindNode

	OK      = history.OK
	Fail    = history.Fail
	Unknown = history.Unknown

	NoClient = history.NoClient
)
