package lock_test

// Helpers for the hash and read/write designs' tests (reentrant, rwlock,
// rwlock-hash, rwlock-counted). Names end in "RW" because other designs'
// test files share this package.

import (
	"context"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/lock/locktest"
)

const ttlRW = 300 * time.Millisecond

// rwDesigns are the read/write designs under the shared contract.
var rwDesigns = []string{"rwlock", "rwlock-hash", "rwlock-counted"}

// epochRW is where every manual clock starts, so stored timestamps are
// predictable.
var epochRW = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// clockRW is a clock that moves only when told (locktest.ManualClock).
type clockRW = locktest.ManualClock

func newClockRW() *clockRW { return locktest.NewManualClock(epochRW) }

// worldRW is one miniredis with a shared manual clock; each client gets its
// own go-redis connection pool, as a locksim client would.
type worldRW struct {
	t   *testing.T
	m   *miniredis.Miniredis
	clk *clockRW
}

func newWorldRW(t *testing.T) *worldRW {
	t.Helper()
	return &worldRW{t: t, m: miniredis.RunT(t), clk: newClockRW()}
}

func (w *worldRW) client() redis.UniversalClient {
	c := redis.NewClient(&redis.Options{Addr: w.m.Addr(), ContextTimeoutEnabled: true})
	w.t.Cleanup(func() { _ = c.Close() })
	return c
}

// locker builds design name for owner with the test TTL, the world's clock
// and a generous node timeout (the race detector is slow); edit adjusts the
// options further.
func (w *worldRW) locker(name, owner string, edit ...func(*lock.Options)) lock.Locker {
	w.t.Helper()
	o := lock.Options{Owner: owner, TTL: ttlRW, NodeTimeout: 5 * time.Second, Clock: w.clk}
	for _, e := range edit {
		e(&o)
	}
	l, err := lock.New(name, []redis.UniversalClient{w.client()}, o)
	require.NoError(w.t, err)
	return l
}

func (w *worldRW) reader(name, owner string, edit ...func(*lock.Options)) lock.ReadLocker {
	w.t.Helper()
	l := w.locker(name, owner, edit...)
	r, ok := l.(lock.ReadLocker)
	require.Truef(w.t, ok, "%s does not implement lock.ReadLocker", name)
	return r
}

// elapse moves both the client clock and the node's TTLs.
func (w *worldRW) elapse(d time.Duration) {
	w.m.FastForward(d)
	w.clk.Advance(d)
}

func acquireRW(t *testing.T, l lock.Locker, key string) *lock.Lease {
	t.Helper()
	ls, err := l.Acquire(context.Background(), key)
	require.NoError(t, err, "write acquire")
	require.Equal(t, lock.Exclusive, ls.Mode)
	return ls
}

func acquireReadRW(t *testing.T, l lock.ReadLocker, key string) *lock.Lease {
	t.Helper()
	ls, err := l.AcquireRead(context.Background(), key)
	require.NoError(t, err, "read acquire")
	require.Equal(t, lock.Shared, ls.Mode)
	return ls
}

func refusedRW(t *testing.T, ls *lock.Lease, err error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, lock.ErrNotAcquired, msg)
	require.Nil(t, ls, msg)
}

// watchdogRW turns the watchdog on and reports each renewal on renewed.
func watchdogRW(renewed chan<- struct{}) func(*lock.Options) {
	return func(o *lock.Options) {
		o.Watchdog = true
		o.Hook = func(ctx context.Context, ev lock.Event) error {
			if ev.Point == vocab.PointWatchdogRenewed {
				select {
				case renewed <- struct{}{}:
				case <-ctx.Done():
				}
			}
			return nil
		}
	}
}

// keepRenewingRW lets n watchdog periods (TTL/3 each) pass, node and client
// time together, and checks after each that the renewal reset key's TTL.
// Time moves only here, so the test does not depend on the scheduler.
func keepRenewingRW(t *testing.T, w *worldRW, renewed <-chan struct{}, key string, n int) {
	t.Helper()
	for i := range n {
		w.clk.WaitSleeping(t, 1) // the watchdog waits for its next renewal
		w.m.FastForward(ttlRW / 3)
		w.clk.Advance(ttlRW / 3)
		select {
		case <-renewed:
		case <-time.After(locktest.HangGuard):
			t.Fatalf("hung: period %d: no renewal %v after the watchdog's time came", i, locktest.HangGuard)
		}
		require.Equal(t, ttlRW, w.m.TTL(key), "period %d: the renewal resets the TTL", i)
	}
}
