// Package lock holds the Redis lock designs that locksim puts under test, each
// behind one Locker interface, together with the pieces they share: the
// injected clock, lease arithmetic, Lua scripts and the blocking acquire.
//
// Every design reads time only through Options.Clock and announces its
// internal steps through Options.Hook, so that a simulator can skew its clock
// and pause or crash it at an exact point. Outside a simulator both default to
// the system clock and a no-op.
package lock

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Definite refusals. Any other error from Acquire, Release or Extend means the
// outcome is unknown: the command may or may not have taken effect.
var (
	// ErrNotAcquired: the lock is held by someone else (a definite "no").
	ErrNotAcquired = errors.New("lock not acquired")
	// ErrNotHeld: the caller does not hold the lock (it expired or belongs to
	// another owner), so nothing was released or extended.
	ErrNotHeld = errors.New("lock not held by this owner")
)

// RoundError details a multi-node acquire that failed as a refusal
// (ErrNotAcquired): which nodes set the key, out of how many, how many it
// needed, and the validity left after the round. It is wrapped next to
// ErrNotAcquired, so errors.As finds it; its message is empty, the
// refusal's own message says it in words.
type RoundError struct {
	Granted  []int // the nodes that set the key, ascending
	Asked    int
	Refused  int // the nodes that said no (the key was there)
	Need     int
	Validity time.Duration
}

func (*RoundError) Error() string { return "" }

// Mode says what kind of hold a lease is.
type Mode int

const (
	Exclusive Mode = iota // the only mode of a mutex; a write hold of a read/write lock
	Shared                // a read hold of a read/write lock
)

func (m Mode) String() string {
	if m == Shared {
		return "read"
	}
	return "write"
}

// Locker is one client's handle on one lock design. A Locker is used by one
// client at a time; its own background work (the watchdog) is safe alongside.
type Locker interface {
	// Acquire makes one attempt. It returns ErrNotAcquired when the lock is
	// definitely held by someone else; any other error is an unknown outcome.
	Acquire(ctx context.Context, key string) (*Lease, error)
	// Release gives the lease back. ErrNotHeld means the lock was no longer
	// this lease's to release (compare-and-delete designs only).
	Release(ctx context.Context, l *Lease) error
	// Name is the algorithm's name as the CLI and scenario files spell it.
	Name() string
}

// Extender is implemented by designs that can prolong a held lease.
type Extender interface {
	// Extend resets the lease's TTL, if it is still held by this owner.
	Extend(ctx context.Context, l *Lease) error
}

// ProcessControl is implemented by designs that run outside the Go
// process (package adapter): the simulator stops, resumes and kills that
// process together with the client that drives it, and closes it when the
// client is done.
type ProcessControl interface {
	Stop() error     // SIGSTOP: a stop-the-world pause, mid-command if need be
	Continue() error // SIGCONT
	Kill() error     // SIGKILL: a crash
	Close() error    // end the process and wait for it
}

// ReadLocker is implemented by read/write designs: Acquire takes the write
// (exclusive) lock and AcquireRead a shared one.
type ReadLocker interface {
	Locker
	AcquireRead(ctx context.Context, key string) (*Lease, error)
}

// Lease is a held lock. Key, Token, Mode and Fence never change; the validity
// window moves when the lease is extended (by Extend or the watchdog).
type Lease struct {
	Key   string
	Token string // the owner's unique value stored in Redis
	Mode  Mode
	// Fence is the fencing token (strictly growing per key), 0 when the design
	// has none.
	Fence int64
	// Granted and Asked: a multi-node design's acquire round, the nodes
	// (by index) that set the key out of Asked; empty when the design does
	// not say. Set before the lease is returned, never changed after.
	Granted []int
	Asked   int

	mu       sync.Mutex
	start    time.Time     // client clock when the (last) acquire or extend was sent
	validity time.Duration // how long after start the holder may rely on the lock; 0: no expiry

	stopWatchdog func() // nil when no watchdog runs
}

// NewLease builds a lease; designs outside this package (adapters, tests) use it.
func NewLease(key, token string, mode Mode, start time.Time, validity time.Duration) *Lease {
	return &Lease{Key: key, Token: token, Mode: mode, start: start, validity: validity}
}

// Window returns when the lease's current validity was measured from and how
// long it lasts (client clock). A zero validity means the lock never expires.
func (l *Lease) Window() (start time.Time, validity time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.start, l.validity
}

// Expires reports whether the lock has a TTL at all (naive designs do not).
func (l *Lease) Expires() bool {
	_, v := l.Window()
	return v != 0
}

// Deadline is the client-clock instant after which the holder must not rely
// on the lock. It is meaningless when Expires is false.
func (l *Lease) Deadline() time.Time {
	s, v := l.Window()
	return s.Add(v)
}

// Remaining is the validity left at client-clock instant now; negative once
// expired, and a large value for leases without expiry.
func (l *Lease) Remaining(now time.Time) time.Duration {
	s, v := l.Window()
	if v == 0 {
		return time.Duration(1<<62 - 1)
	}
	return s.Add(v).Sub(now)
}

// Renew moves the lease's validity window: measured from start (client
// clock, when the renewal was sent), lasting validity. Designs outside this
// package call it when an extend succeeds.
func (l *Lease) Renew(start time.Time, validity time.Duration) { l.renewed(start, validity) }

func (l *Lease) renewed(start time.Time, validity time.Duration) {
	l.mu.Lock()
	l.start, l.validity = start, validity
	l.mu.Unlock()
}

// StopWatchdog ends the lease's watchdog, if any, and waits for it, without
// releasing the lock: for a holder that gives up on the lease without an
// unlock (a simulated process whose run ended mid-cycle), so that renewals
// do not outlive it.
func (l *Lease) StopWatchdog() { l.stop() }

// stop ends the lease's watchdog, if any, and waits for it.
func (l *Lease) stop() {
	l.mu.Lock()
	f := l.stopWatchdog
	l.stopWatchdog = nil
	l.mu.Unlock()
	if f != nil {
		f()
	}
}
