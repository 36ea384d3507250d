package lock

import (
	"context"
	"time"
)

// Clock is the only way the lock designs read time or wait. The simulator
// gives each client its own clock (offset, rate, jumps); real use takes
// SystemClock.
type Clock interface {
	Now() time.Time
	// Sleep waits d as this clock measures it, or until ctx ends.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the process's own clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WatchedClock is a clock that can be stepped and re-rated (the
// simulator's client clocks) and tells of it: a process design carries
// every change to its child's clock, so that the child reads the same
// clock as the client loop around it.
type WatchedClock interface {
	Clock
	// Rate is how fast the clock runs against true time now.
	Rate() float64
	// Watch calls f after every jump, rate change and reset, before the
	// change returns; stop ends the calls.
	Watch(f func()) (stop func())
}
