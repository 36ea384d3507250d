package bench

import (
	"context"
	"errors"
	"fmt"
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

// compareAndDelete is the raw loop's unlock, the Redis docs' script.
var compareAndDelete = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)

// rawWorker is the raw limit: what a lock cycle costs with nothing but
// go-redis between the client and the node. SET key token NX PX ttl, on a
// refusal the same retry wait as lock.Blocking, hold, then EVALSHA of the
// compare-and-delete script (loaded once, before the run). The token is
// made as the designs make theirs (lock.RandomToken), so it costs the same.
type rawWorker struct {
	conn  *redis.Client
	key   string
	ttl   time.Duration
	retry lock.RetryPolicy
	hold  time.Duration
	rnd   *rand.Rand
}

func (w *rawWorker) close() { _ = w.conn.Close() }

func (w *rawWorker) run(ctx context.Context, s *segment, m *meter) {
	var clk lock.Clock = segmentClock{s}
	for {
		t0 := time.Now()
		if s.over(t0) {
			return
		}
		token := lock.RandomToken()
		ok, err := false, error(nil)
		for {
			m.attempts++
			ok, err = w.conn.SetNX(ctx, w.key, token, w.ttl).Result()
			if err != nil || ok {
				break
			}
			m.refused++
			wait := w.retry.Interval
			if w.retry.Jitter > 0 {
				wait += time.Duration(w.rnd.Int64N(int64(w.retry.Jitter)))
			}
			if err = clk.Sleep(ctx, wait); err != nil {
				break
			}
		}
		t1 := time.Now()
		if !ok {
			if s.over(t1) || ctx.Err() != nil {
				return
			}
			m.fail(fmt.Errorf("raw: acquire %q: %w", w.key, err))
			_ = clk.Sleep(ctx, w.retry.Interval)
			continue
		}
		holdFor(w.hold)
		n, err := w.conn.EvalSha(ctx, compareAndDelete.Hash(), []string{w.key}, token).Int64()
		t2 := time.Now()
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			m.fail(fmt.Errorf("raw: release %q: %w", w.key, err))
			continue
		case n != 1:
			m.fail(fmt.Errorf("raw: release %q: %w", w.key, lock.ErrNotHeld))
			continue
		}
		if t2.After(s.deadline) {
			return
		}
		m.done(t1.Sub(t0), t2.Sub(t0))
	}
}
