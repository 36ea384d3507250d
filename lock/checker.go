package lock

import "context"

// Checker is implemented by designs whose library has its own validity
// check, the call an application makes before it acts on a held lease
// (redsync's Mutex.Valid before it had Mutex.Until). The simulator's
// validity check calls it instead of reading the lease's deadline, so a
// check that answers late or wrongly is the library's. A design without a
// check of its own says so with ok false, and the caller reads the
// deadline.
type Checker interface {
	// StillValid says whether l may still be acted on; ok is false when
	// the design has no check of its own.
	StillValid(ctx context.Context, l *Lease) (valid, ok bool, err error)
}
