package sim

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vtime"
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
	// changed hears of every jump, rate change and reset, outside the
	// lock, so that the history holds the clock's whole course: a lease's
	// deadline is a reading of this clock, and its true-time image depends
	// on everything the clock does after the acquire.
	changed func(at, reading time.Duration, rate float64)
	// watchers hear of every change too (a process design's child clock)
	watchers  map[int]func()
	nextWatch int
	// wait is how Sleep waits: through the run's scheduler in virtual time.
	wait *sleeper
}

var _ lock.WatchedClock = (*ClientClock)(nil)

// NewClientClock starts a clock that agrees with true time.
func NewClientClock(origin, epoch time.Time) *ClientClock {
	return &ClientClock{origin: origin, epoch: epoch, rate: 1, wait: &sleeper{}}
}

// sleeper waits in true time. In virtual time every wait ends through the
// run's scheduler (vtime.Scheduler), under the key "<name>#<n>" for its
// n-th wait, so that the sleepers woken at one instant go on in the order
// of the run's seed; otherwise (sched nil) it is a plain timer.
type sleeper struct {
	sched *vtime.Scheduler
	name  string
	n     atomic.Int64
}

func newSleeper(s *vtime.Scheduler, name string) *sleeper { return &sleeper{sched: s, name: name} }

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	if s.sched == nil {
		return lock.SystemClock{}.Sleep(ctx, d)
	}
	return s.sched.Sleep(ctx, s.name+"#"+strconv.FormatInt(s.n.Add(1), 10), d)
}

// sleeperClock is true time with waits through a sleeper: the clock of the
// harness's own lock clients (the probe).
type sleeperClock struct{ *sleeper }

func (sleeperClock) Now() time.Time { return time.Now() }

func (c sleeperClock) Sleep(ctx context.Context, d time.Duration) error { return c.sleep(ctx, d) }

// rebase restarts the clock at true time 0 = origin, reading epoch then;
// before the run starts, when nothing reads it yet.
func (c *ClientClock) rebase(origin, epoch time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.origin, c.epoch = origin, epoch
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
	return c.wait.sleep(ctx, c.TrueDuration(d))
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
	c.set(func(t time.Duration) (time.Duration, float64) { return c.readLocked(t) + d, c.rate })
}

// SetRate makes the clock run at r times true time from now on.
func (c *ClientClock) SetRate(r float64) {
	c.set(func(t time.Duration) (time.Duration, float64) { return c.readLocked(t), r })
}

// Reset puts the clock back in step with true time (a healed skew).
func (c *ClientClock) Reset() {
	c.set(func(t time.Duration) (time.Duration, float64) { return t, 1 })
}

// set re-anchors the clock at true now with the reading and rate next
// gives, and reports the change.
func (c *ClientClock) set(next func(t time.Duration) (time.Duration, float64)) {
	c.mu.Lock()
	t := c.trueNow()
	c.anchorClient, c.rate = next(t)
	c.anchorTrue = t
	reading, rate, changed := c.anchorClient, c.rate, c.changed
	watchers := make([]func(), 0, len(c.watchers))
	for _, f := range c.watchers {
		watchers = append(watchers, f)
	}
	c.mu.Unlock()
	if changed != nil {
		changed(t, reading, rate)
	}
	for _, f := range watchers {
		f()
	}
}

// Rate is how fast the clock runs against true time now.
func (c *ClientClock) Rate() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rate
}

// Watch calls f after every jump, rate change and reset, outside the
// clock's lock; stop ends the calls.
func (c *ClientClock) Watch(f func()) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watchers == nil {
		c.watchers = map[int]func(){}
	}
	id := c.nextWatch
	c.nextWatch++
	c.watchers[id] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.watchers, id)
	}
}

// Reading is instant x of this clock (a lease's deadline, say) as a
// duration since the clock's epoch: the scale of the history's clock
// records and lease deadlines.
func (c *ClientClock) Reading(x time.Time) time.Duration { return x.Sub(c.epoch) }
