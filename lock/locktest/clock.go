// Package locktest has helpers for tests of lock designs: a clock that
// moves only when the test says so.
package locktest

import (
	"context"
	"sync"
	"time"
)

// ManualClock is a lock.Clock that moves only when told. Sleepers wait
// until Advance carries the clock past their deadline, so a test decides
// exactly when a retry loop or a watchdog wakes.
type ManualClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[chan struct{}]time.Time
}

// NewManualClock starts the clock at start.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start, sleepers: map[chan struct{}]time.Time{}}
}

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep waits until the clock has moved d past now, or ctx ends.
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	wake := make(chan struct{})
	c.mu.Lock()
	c.sleepers[wake] = c.now.Add(d)
	c.mu.Unlock()
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.sleepers, wake)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock by d and wakes the sleepers whose time came.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for wake, at := range c.sleepers {
		if !at.After(c.now) {
			close(wake)
			delete(c.sleepers, wake)
		}
	}
}

// Sleeping counts the goroutines waiting on this clock.
func (c *ManualClock) Sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}
