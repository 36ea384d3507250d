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
