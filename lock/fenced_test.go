package lock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/miniredis/server"
	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func TestFencedTokensStrictlyGrow(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	lockers := []lock.Locker{
		newLockerStrings(t, "fenced", client(), newClockStrings(0), nil),
		newLockerStrings(t, "fenced", client(), newClockStrings(0), nil),
		newLockerStrings(t, "fenced", client(), newClockStrings(0), nil),
	}
	var last int64
	for round := range 9 {
		l := lockers[round%len(lockers)]
		lease, err := l.Acquire(ctx, "k")
		require.NoError(t, err)
		require.Greater(t, lease.Fence, last, "round %d", round)
		last = lease.Fence
		require.Equal(t, lease.Token, mustGetStrings(t, c, "k"))
		require.Equal(t, strconv.FormatInt(last, 10), mustGetStrings(t, c, "{k}:fence"))
		if round%3 == 2 {
			m.FastForward(ttlStrings) // lost by expiry, never released
			continue
		}
		require.NoError(t, l.Release(ctx, lease))
	}
	require.EqualValues(t, -1, pttlStrings(t, c, "{k}:fence"), "the counter must outlive every lease")
}

// A refused acquire takes no token.
func TestFencedRefusalTakesNoToken(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	c := client()
	a := newLockerStrings(t, "fenced", client(), newClockStrings(0), nil)
	b := newLockerStrings(t, "fenced", client(), newClockStrings(0), nil)
	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, strconv.FormatInt(la.Fence, 10), mustGetStrings(t, c, "{k}:fence"))
}

// A failed INCR is an unknown outcome; the key is handed back so nobody waits
// a TTL for a lease nobody holds.
func TestFencedFailedIncrIsUnknownAndReleases(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	a := newLockerStrings(t, "fenced", client(), newClockStrings(0), nil)

	m.Server().SetPreHook(func(p *server.Peer, cmd string, _ ...string) bool {
		if cmd == "INCR" {
			p.WriteError("ERR injected INCR failure")
			return true
		}
		return false
	})
	_, err := a.Acquire(ctx, "k")
	requireUnknownStrings(t, err)
	require.ErrorContains(t, err, "injected INCR failure")
	require.False(t, m.Exists("k"), "the lock key is released best-effort")

	m.Server().SetPreHook(nil)
	lease, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.EqualValues(t, 1, lease.Fence)
}

// The point between SET and INCR is announced with the lease; a crash there
// leaves the lock key (with its TTL) and no token taken.
func TestFencedCrashBetweenSetAndIncr(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	var seen pointsStrings
	a := newLockerStrings(t, "fenced", c, newClockStrings(0), crashAtStrings(vocab.PointBetweenSetAndIncr, &seen))

	_, err := a.Acquire(ctx, "k")
	require.ErrorIs(t, err, errCrashStrings)
	require.Equal(t, []lock.Point{vocab.PointBetweenSetAndIncr}, seen.list())
	require.False(t, m.Exists("{k}:fence"), "INCR must not run after the crash")
	require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"), "the crashed client's key expires by its TTL")
}

func TestFencedReleaseAfterExpiryIsRefused(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	a := newLockerStrings(t, "fenced", client(), newClockStrings(0), nil)
	b := newLockerStrings(t, "fenced", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	m.FastForward(ttlStrings)
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Greater(t, lb.Fence, la.Fence)

	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)
	require.Equal(t, lb.Token, mustGetStrings(t, c, "k"), "b's lock is untouched")
}

// fenced starts its own watchdog once the lease has its token: the renewal
// resets the TTL, carries the fence, and stops at release.
func TestFencedWatchdogRenewsUntilRelease(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	clk := newClockStrings(0)
	renewed := make(chan int64, 8)
	hook := func(_ context.Context, ev lock.Event) error {
		if ev.Point == vocab.PointWatchdogRenewed {
			renewed <- ev.Lease.Fence
		}
		return nil
	}
	a, err := lock.New("fenced", []redis.UniversalClient{c}, lock.Options{
		TTL: ttlStrings, NodeTimeout: 5 * time.Second, Clock: clk, Hook: hook, Watchdog: true,
	})
	require.NoError(t, err)

	lease, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	clk.WaitSleeping(t, 1)
	m.FastForward(ttlStrings / 2)
	clk.Advance(ttlStrings / 3)
	require.Equal(t, lease.Fence, <-renewed)
	require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"))
	start, _ := lease.Window()
	require.Equal(t, clk.Now(), start)

	require.NoError(t, a.Release(ctx, lease))
	require.Equal(t, 0, clk.Sleeping(), "release stops the watchdog")
	require.False(t, m.Exists("k"))
}

// The validity covers the INCR too: a pause before it shortens the lease.
func TestFencedValidityCoversPauseBeforeIncr(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	clk := newClockStrings(0)
	const pause = 100 * time.Millisecond
	hook := func(_ context.Context, ev lock.Event) error {
		if ev.Point == vocab.PointBetweenSetAndIncr {
			clk.Advance(pause)
		}
		return nil
	}
	a := newLockerStrings(t, "fenced", client(), clk, hook)
	lease, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	start, validity := lease.Window()
	require.Equal(t, epochStrings, start)
	require.Equal(t, lock.Validity(ttlStrings, pause, 0.01), validity)
}
