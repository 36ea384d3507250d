package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func TestRedislockRegistered(t *testing.T) {
	i, err := lock.Lookup("redislock")
	require.NoError(t, err)
	require.True(t, i.Extendable && i.Expires && i.Peer)
	require.False(t, i.MultiNode || i.Watchdog || i.DelUnlock || i.Fencing)
}

func TestRedislockAcquireRefuseRelease(t *testing.T) {
	ns := newNodesRedlock(t, 3)
	a := newLockerRedlock(t, "redislock", ns, lock.Options{})
	b := newLockerRedlock(t, "redislock", ns, lock.Options{})
	ctx := context.Background()

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.True(t, la.Expires())
	require.Equal(t, []int{0}, ns.holding("k", la.Token), "single node, our token")
	require.Equal(t, ttlRedlock, ns.servers[0].TTL("k"))

	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, []int{0}, ns.holding("k", la.Token))

	require.NoError(t, a.Release(ctx, la))
	require.Empty(t, ns.withKey("k"))
	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)

	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, []int{0}, ns.holding("k", lb.Token))
}

func TestRedislockReleaseOfAnotherOwnersLockIsNotHeld(t *testing.T) {
	ns := newNodesRedlock(t, 1)
	a := newLockerRedlock(t, "redislock", ns, lock.Options{})
	b := newLockerRedlock(t, "redislock", ns, lock.Options{})
	ctx := context.Background()
	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)

	ns.fastForward(ttlRedlock + time.Millisecond)
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)
	require.Equal(t, []int{0}, ns.holding("k", lb.Token), "the stale release leaves the new owner's lock")
}

func TestRedislockValidityFromClientClock(t *testing.T) {
	const elapsed = 100 * time.Millisecond
	ns := newNodesRedlock(t, 1)
	clk := newManualClockRedlock(elapsed)
	l := newLockerRedlock(t, "redislock", ns, lock.Options{Clock: clk})
	sent := clk.Peek()

	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	start, validity := lease.Window()
	require.Equal(t, sent, start)
	require.Equal(t, ttlRedlock-elapsed-ttlRedlock/100, validity)
}

func TestRedislockExtend(t *testing.T) {
	ns := newNodesRedlock(t, 1)
	clk := newManualClockRedlock(10 * time.Millisecond)
	l := newLockerRedlock(t, "redislock", ns, lock.Options{Clock: clk})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ext, ok := l.(lock.Extender)
	require.True(t, ok)

	ns.fastForward(300 * time.Millisecond)
	clk.SetStep(20 * time.Millisecond)
	sent := clk.Peek()
	require.NoError(t, ext.Extend(ctx, lease))
	require.Equal(t, ttlRedlock, ns.servers[0].TTL("k"))
	start, validity := lease.Window()
	require.Equal(t, sent, start)
	require.Equal(t, ttlRedlock-20*time.Millisecond-ttlRedlock/100, validity)

	ns.servers[0].Del("k")
	require.ErrorIs(t, ext.Extend(ctx, lease), lock.ErrNotHeld)
	s2, v2 := lease.Window()
	require.Equal(t, start, s2)
	require.Equal(t, validity, v2)
}

func TestRedislockNodeDownIsUnknown(t *testing.T) {
	ns := newNodesRedlock(t, 1)
	l := newLockerRedlock(t, "redislock", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ns.close(0)

	_, err = l.Acquire(ctx, "k2")
	requireUnknownRedlock(t, err)
	requireUnknownRedlock(t, l.(lock.Extender).Extend(ctx, lease))
	requireUnknownRedlock(t, l.Release(ctx, lease))
}
