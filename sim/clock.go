package sim

import (
	"context"
	"sync"
	"time"

	"github.com/locksim/locksim/lock"
)

// ClientClock is one client's clock: true time seen through an offset, a
// rate and jumps. It implements lock.Clock, so every design under test reads
// time through it. Sleeps are scaled by the rate: a clock running fast makes
// its owner's timers (retry delays, the watchdog) fire early, as a real
// fast clock would.
type ClientClock struct {
	mu     sync.Mutex
	epoch  time.Time // wall instant the client clock showed at true time 0
	origin time.Time // the harness's monotonic start (true time 0)
	// The clock is piecewise linear: at true time anchorTrue it showed
	// anchorClient, and runs at rate since.
	anchorTrue   time.Duration
	anchorClient time.Duration
	rate         float64
}

var _ lock.Clock = (*ClientClock)(nil)

// NewClientClock starts a clock that agrees with true time.
func NewClientClock(origin, epoch time.Time) *ClientClock {
	return &ClientClock{origin: origin, epoch: epoch, rate: 1}
}

func (c *ClientClock) trueNow() time.Duration { return time.Since(c.origin) }

// readLocked is the client's reading at true time t.
func (c *ClientClock) readLocked(t time.Duration) time.Duration {
	return c.anchorClient + time.Duration(float64(t-c.anchorTrue)*c.rate)
}

func (c *ClientClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch.Add(c.readLocked(c.trueNow()))
}

// Sleep waits d of this clock's time.
func (c *ClientClock) Sleep(ctx context.Context, d time.Duration) error {
	return lock.SystemClock{}.Sleep(ctx, c.TrueDuration(d))
}

// TrueDuration converts a span of this clock into true time at its current
// rate.
func (c *ClientClock) TrueDuration(d time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(float64(d) / c.rate)
}

// Jump moves the clock by d (forward if positive) at once.
func (c *ClientClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.trueNow()
	c.anchorClient = c.readLocked(t) + d
	c.anchorTrue = t
}

// SetRate makes the clock run at r times true time from now on.
func (c *ClientClock) SetRate(r float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.trueNow()
	c.anchorClient = c.readLocked(t)
	c.anchorTrue = t
	c.rate = r
}

// Reset puts the clock back in step with true time (a healed skew).
func (c *ClientClock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.anchorTrue, c.anchorClient, c.rate = c.trueNow(), c.trueNow(), 1
}

// TrueDeadline maps a lease's remaining validity, as this clock measures it
// now, to the true instant the client believes the lease ends. A later jump
// can only make the client give up earlier, so this is the latest instant the
// client's own promise covers.
func (c *ClientClock) TrueDeadline(l *lock.Lease) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.trueNow()
	now := c.epoch.Add(c.readLocked(t))
	return t + time.Duration(float64(l.Remaining(now))/c.rate)
}
