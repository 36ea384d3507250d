package lock_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

func TestRedsyncRegistered(t *testing.T) {
	i, err := lock.Lookup("redsync")
	require.NoError(t, err)
	require.True(t, i.MultiNode && i.Extendable && i.Expires && i.Peer)
	require.False(t, i.Watchdog || i.DelUnlock || i.Fencing)
	require.Contains(t, i.Weakness, "system clock")
	ns := newNodesRedlock(t, 1)
	_, err = lock.New("redsync", ns.universal(), lock.Options{Watchdog: true})
	require.Error(t, err, "redsync has no watchdog of ours")
}

func TestRedsyncAcquireRefuseRelease(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	a := newLockerRedlock(t, "redsync", ns, lock.Options{})
	b := newLockerRedlock(t, "redsync", ns, lock.Options{})
	ctx := context.Background()

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.True(t, la.Expires())
	require.Equal(t, allRedlock(5), ns.holding("k", la.Token), "redsync stores our token")
	for _, m := range ns.servers {
		require.Equal(t, ttlRedlock, m.TTL("k"))
	}

	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, allRedlock(5), ns.holding("k", la.Token))

	require.NoError(t, a.Release(ctx, la))
	require.Empty(t, ns.withKey("k"))
	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)

	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, allRedlock(5), ns.holding("k", lb.Token))
}

func TestRedsyncReleaseAfterExpiryIsNotHeld(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)

	ns.fastForward(ttlRedlock + time.Millisecond)
	require.Empty(t, ns.withKey("k"))
	require.ErrorIs(t, l.Release(ctx, lease), lock.ErrNotHeld)
}

func TestRedsyncMinorityOverlapIsRefused(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	for _, i := range []int{0, 1, 2} {
		require.NoError(t, ns.servers[i].Set("k", "other"))
	}
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, []int{0, 1, 2}, ns.withKey("k"), "redsync unlocks the nodes it did get")
}

func TestRedsyncAcquiresWithTwoOfFiveNodesDown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	ns.close(0, 4)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{TTL: downNodesTTL})
	ctx := context.Background()

	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 3}, ns.holding("k", lease.Token))
	// redsync reports an unlock on a majority as success.
	require.NoError(t, l.Release(ctx, lease))
	require.Empty(t, ns.withKey("k"))
}

func TestRedsyncFailsWithThreeOfFiveNodesDown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	ns.close(0, 1, 4)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})

	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Empty(t, ns.withKey("k"))
}

func TestRedsyncValidityFromClientClock(t *testing.T) {
	// redsync v4.18.0 computes TTL - elapsed - TTL*drift (no 2 ms floor);
	// the adapter does the same on the injected clock.
	const elapsed = 100 * time.Millisecond
	ns := newNodesRedlock(t, 5)
	clk := newManualClockRedlock(elapsed)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{Clock: clk})
	sent := clk.Peek()

	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	start, validity := lease.Window()
	require.Equal(t, sent, start)
	require.Equal(t, ttlRedlock-elapsed-ttlRedlock/100, validity)
}

func TestRedsyncExtendNeedsMajority(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	clk := newManualClockRedlock(10 * time.Millisecond)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{Clock: clk})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ext, ok := l.(lock.Extender)
	require.True(t, ok)

	ns.servers[3].Del("k")
	ns.servers[4].Del("k")
	ns.fastForward(200 * time.Millisecond)
	clk.SetStep(30 * time.Millisecond)
	sent := clk.Peek()
	require.NoError(t, ext.Extend(ctx, lease))
	start, validity := lease.Window()
	require.Equal(t, sent, start)
	require.Equal(t, ttlRedlock-30*time.Millisecond-ttlRedlock/100, validity)
	for _, i := range []int{0, 1, 2} {
		require.Equal(t, ttlRedlock, ns.servers[i].TTL("k"), "node %d", i)
	}

	ns.servers[2].Del("k")
	require.ErrorIs(t, ext.Extend(ctx, lease), lock.ErrNotHeld)
	s2, v2 := lease.Window()
	require.Equal(t, start, s2)
	require.Equal(t, validity, v2)
}

func TestRedsyncExtendWithNodesDownIsUnknown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ns.close(0, 1, 2)
	requireUnknownRedlock(t, l.(lock.Extender).Extend(ctx, lease))
}

func TestRedsyncReleaseAnnouncesPoint(t *testing.T) {
	ns := newNodesRedlock(t, 3)
	var seen []lock.Point
	hook := func(_ context.Context, ev lock.Event) error {
		seen = append(seen, ev.Point)
		return nil
	}
	l := newLockerRedlock(t, "redsync", ns, lock.Options{Hook: hook})
	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	require.NoError(t, l.Release(context.Background(), lease))
	require.Equal(t, []lock.Point{vocab.PointBeforeReleaseCommand}, seen)
}

func TestRedsyncReleaseWithNodesDownIsUnknown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ns.close(0, 2, 4)
	requireUnknownRedlock(t, l.Release(ctx, lease))
}

func TestRedsyncExtendRefusedBeyondMajorityIsNotHeld(t *testing.T) {
	// 4 nodes (majority 3): 2 refuse, 1 is down, 1 extends. Even if the
	// silent node had extended, 2 of 4 is no majority.
	ns := newNodesRedlock(t, 4)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ns.servers[0].Del("k")
	ns.servers[1].Del("k")
	ns.close(2)
	require.ErrorIs(t, l.(lock.Extender).Extend(ctx, lease), lock.ErrNotHeld)
}

// setCounterRedsync counts SET commands a client sends.
type setCounterRedsync struct{ sets atomic.Int32 }

func (h *setCounterRedsync) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *setCounterRedsync) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *setCounterRedsync) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "set" {
			h.sets.Add(1)
		}
		return next(ctx, cmd)
	}
}

func TestRedsyncAcquireIsOneAttempt(t *testing.T) {
	ns := newNodesRedlock(t, 3)
	for _, m := range ns.servers {
		require.NoError(t, m.Set("k", "other"))
	}
	count := &setCounterRedsync{}
	ns.clients[0].AddHook(count)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{})
	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.EqualValues(t, 1, count.sets.Load(), "retries belong to lock.Blocking, not to redsync")
}

func TestRedsyncClientClockDoesNotReachIt(t *testing.T) {
	// The client's clock says the attempt took longer than the TTL; redsync
	// times itself with the system clock and takes the lock anyway. The
	// lease then carries the spent validity our clock measured, so the
	// simulator's validity check and claim window still see it.
	const elapsed = ttlRedlock + 100*time.Millisecond
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redsync", ns, lock.Options{Clock: newManualClockRedlock(elapsed)})
	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	require.Equal(t, allRedlock(5), ns.holding("k", lease.Token))
	_, validity := lease.Window()
	require.Equal(t, ttlRedlock-elapsed-ttlRedlock/100, validity)
	require.True(t, lease.Expires())
}
