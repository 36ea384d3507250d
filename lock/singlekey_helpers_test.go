package lock_test

// Helpers for the single-key designs' tests (naive, setnx-expire,
// setnx-getset, lua-setnx, fenced). Names end in "Strings" because other
// designs' test files share this package.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/lock/locktest"
)

const ttlStrings = 500 * time.Millisecond

// epochStrings is where every manual clock starts: a fixed instant, so
// stored timestamps are predictable.
var epochStrings = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// errCrashStrings is what a hook returns to crash the client at a point.
var errCrashStrings = errors.New("client crashed (test)")

// manualClockStrings is a clock that moves only when told (locktest.ManualClock).
type manualClockStrings = locktest.ManualClock

func newClockStrings(offset time.Duration) *manualClockStrings {
	return locktest.NewManualClock(epochStrings.Add(offset))
}

// newRedisStrings starts a miniredis and returns it with a factory for go-redis
// clients to it (one per simulated client, as in locksim).
func newRedisStrings(t *testing.T) (*miniredis.Miniredis, func() redis.UniversalClient) {
	t.Helper()
	m := miniredis.RunT(t)
	return m, func() redis.UniversalClient {
		c := redis.NewClient(&redis.Options{Addr: m.Addr(), ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
}

// newLockerStrings builds the named design for one client with the test TTL,
// a generous node timeout (the race detector is slow) and the given clock
// and hook (nil for none).
func newLockerStrings(t *testing.T, name string, c redis.UniversalClient, clk lock.Clock, hook lock.Hook) lock.Locker {
	t.Helper()
	l, err := lock.New(name, []redis.UniversalClient{c}, lock.Options{
		TTL: ttlStrings, NodeTimeout: 5 * time.Second, Clock: clk, Hook: hook,
	})
	require.NoError(t, err)
	return l
}

// pttlStrings is the raw PTTL reply: -1 no TTL, -2 no key.
func pttlStrings(t *testing.T, c redis.UniversalClient, key string) int64 {
	t.Helper()
	n, err := c.Do(context.Background(), "PTTL", key).Int64()
	require.NoError(t, err)
	return n
}

// mustGetStrings reads a string key that must exist.
func mustGetStrings(t *testing.T, c redis.UniversalClient, key string) string {
	t.Helper()
	v, err := c.Get(context.Background(), key).Result()
	require.NoError(t, err)
	return v
}

// pointsStrings records the points a hook saw, in order.
type pointsStrings struct {
	mu   sync.Mutex
	seen []lock.Point
}

func (p *pointsStrings) hook(_ context.Context, ev lock.Event) error {
	p.mu.Lock()
	p.seen = append(p.seen, ev.Point)
	p.mu.Unlock()
	return nil
}

func (p *pointsStrings) list() []lock.Point {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]lock.Point(nil), p.seen...)
}

// crashAtStrings is a hook that crashes the client at point and records
// every point it passes.
func crashAtStrings(point lock.Point, seen *pointsStrings) lock.Hook {
	return func(ctx context.Context, ev lock.Event) error {
		if seen != nil {
			_ = seen.hook(ctx, ev)
		}
		if ev.Point == point {
			return errCrashStrings
		}
		return nil
	}
}

// pauseStrings pauses a client at a point until resumed: the simulator's gate
// in miniature.
type pauseStrings struct {
	point   lock.Point
	arrived chan struct{}
	resume  chan struct{}
}

func newPauseStrings(point lock.Point) *pauseStrings {
	return &pauseStrings{point: point, arrived: make(chan struct{}, 1), resume: make(chan struct{})}
}

func (p *pauseStrings) hook(ctx context.Context, ev lock.Event) error {
	if ev.Point != p.point {
		return nil
	}
	p.arrived <- struct{}{}
	select {
	case <-p.resume:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquireAsyncStrings runs Acquire in the background.
type acquireResultStrings struct {
	lease *lock.Lease
	err   error
}

func acquireAsyncStrings(l lock.Locker, key string) <-chan acquireResultStrings {
	out := make(chan acquireResultStrings, 1)
	go func() {
		lease, err := l.Acquire(context.Background(), key)
		out <- acquireResultStrings{lease, err}
	}()
	return out
}

// requireUnknownStrings checks that err is neither definite refusal.
func requireUnknownStrings(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.NotErrorIs(t, err, lock.ErrNotAcquired)
	require.NotErrorIs(t, err, lock.ErrNotHeld)
}
