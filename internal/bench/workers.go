package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
)

// designWorker cycles one lock design: lock.Blocking over the design's
// single attempt, hold, Release.
type designWorker struct {
	locker lock.Locker
	conns  []redis.UniversalClient
	key    string
	retry  lock.RetryPolicy
	hold   time.Duration
	rnd    *rand.Rand
	m      *meter        // the current segment's tally, for attempt
	try    lock.Acquirer // attempt, bound once rather than every cycle
}

func (w *designWorker) close() {
	for _, c := range w.conns {
		_ = c.Close()
	}
}

// attempt is one counted Acquire.
func (w *designWorker) attempt(ctx context.Context, key string) (*lock.Lease, error) {
	w.m.attempts++
	l, err := w.locker.Acquire(ctx, key)
	if errors.Is(err, lock.ErrNotAcquired) {
		w.m.refused++
	}
	return l, err
}

func (w *designWorker) run(ctx context.Context, s *segment, m *meter) {
	w.m = m
	if w.try == nil {
		w.try = w.attempt
	}
	var clk lock.Clock = segmentClock{s}
	for {
		t0 := time.Now()
		if s.over(t0) {
			return
		}
		l, err := lock.Blocking(ctx, w.try, w.key, w.retry, clk, w.rnd)
		t1 := time.Now()
		if err != nil {
			if s.over(t1) {
				return // the wait was cut short by the segment's end
			}
			if ctx.Err() != nil {
				return // interrupted: every later attempt would fail at once
			}
			m.fail(err)
			_ = clk.Sleep(ctx, w.retry.Interval) // an erring node must not be hammered
			continue
		}
		holdFor(w.hold)
		err = w.locker.Release(ctx, l)
		t2 := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			m.fail(err)
			continue
		}
		if t2.After(s.deadline) {
			return
		}
		m.done(t1.Sub(t0), t2.Sub(t0))
	}
}
