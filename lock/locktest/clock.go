// Package locktest has helpers for tests of lock designs: a clock that
// moves only when the test says so.
package locktest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// ManualClock is a lock.Clock that moves only when told. It is the one
// manual clock of locksim's tests.
//
// By default sleepers wait until Advance carries the clock past their
// deadline, so a test decides exactly when a retry loop or a watchdog wakes.
// Two switches cover the other ways tests need time to move:
//
//   - SetStep makes every Now() reading a fixed step later than the one
//     before, so the elapsed time a design measures between two readings is
//     known exactly (Peek reads the clock without stepping it);
//   - SetAdvanceOnSleep makes Sleep move the clock itself by the duration
//     asked and return at once, for a retry loop driven from one goroutine.
type ManualClock struct {
	mu       sync.Mutex
	now      time.Time
	step     time.Duration
	autoWake bool
	sleepers map[chan struct{}]time.Time
}

// NewManualClock starts the clock at start, standing still.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start, sleepers: map[chan struct{}]time.Time{}}
}

// Now is the clock's reading. With a step set, the clock then moves on by
// the step (waking the sleepers whose time came).
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	if c.step > 0 {
		c.advanceLocked(c.step)
	}
	return t
}

// Peek is the reading the next Now() will return; it never steps the clock.
func (c *ManualClock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// SetStep makes every later Now() reading d later than the one before; 0
// makes the clock stand still between Advances again.
func (c *ManualClock) SetStep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = max(d, 0)
}

// SetAdvanceOnSleep decides what Sleep does: wait for Advance (false, the
// default) or move the clock by the duration itself and return at once
// (true).
func (c *ManualClock) SetAdvanceOnSleep(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.autoWake = on
}

// Sleep waits until the clock has moved d past now, or ctx ends. With
// SetAdvanceOnSleep(true) it moves the clock by d and returns at once
// (ctx's error if ctx has already ended, and then the clock stays).
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	if c.autoWake {
		defer c.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		c.advanceLocked(d)
		return nil
	}
	wake := make(chan struct{})
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
	c.advanceLocked(d)
}

func (c *ManualClock) advanceLocked(d time.Duration) {
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

// HangGuard bounds how long a test waits for something that must happen
// (another goroutine reaching a point, a reply, a process exiting). It is no
// measure of how fast anything is: only a hang outlasts it, on any machine,
// however loaded. simtest.HangGuard is the same bound.
const HangGuard = 2 * time.Minute

// WaitSleeping waits until n goroutines sleep on the clock. It polls the
// real clock only to wait for another goroutine to reach its Sleep, and
// fails the test as hung after HangGuard.
func (c *ManualClock) WaitSleeping(t testing.TB, n int) {
	t.Helper()
	guard := time.NewTimer(HangGuard)
	defer guard.Stop()
	poll := time.NewTicker(time.Millisecond)
	defer poll.Stop()
	for c.Sleeping() != n {
		select {
		case <-guard.C:
			t.Fatalf("hung: %d goroutines sleep on the manual clock after %v, want %d", c.Sleeping(), HangGuard, n)
		case <-poll.C:
		}
	}
}
