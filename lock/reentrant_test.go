package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/locksim/locksim/lock"
)

func TestReentrantNestsAndUnwinds(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.locker("reentrant", "a"), w.locker("reentrant", "b")
	ctx := context.Background()

	var leases []*lock.Lease
	for i := range 3 {
		l := acquireRW(t, a, "k")
		require.Equal(t, "a", l.Token, "nested leases share the owner as token")
		leases = append(leases, l)
		if i < 2 {
			w.elapse(ttlRW / 2)
			require.Equal(t, ttlRW/2, w.m.TTL("k"))
		}
	}
	require.Equal(t, "3", w.m.HGet("k", "a"))
	require.Equal(t, ttlRW, w.m.TTL("k"), "each nested acquire resets the TTL")
	keys, err := w.m.HKeys("k")
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, keys)

	for i, want := range []string{"2", "1"} {
		require.NoError(t, a.Release(ctx, leases[2-i]))
		require.Equal(t, want, w.m.HGet("k", "a"))
		ls, err := b.Acquire(ctx, "k")
		refusedRW(t, ls, err, "another owner while a still holds")
	}
	require.NoError(t, a.Release(ctx, leases[0]))
	require.False(t, w.m.Exists("k"), "the last release deletes the hash")
	lb := acquireRW(t, b, "k")
	require.Equal(t, "b", lb.Token)
}

func TestReentrantOtherOwnerRefused(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.locker("reentrant", "a"), w.locker("reentrant", "b")
	acquireRW(t, a, "k")
	ls, err := b.Acquire(context.Background(), "k")
	refusedRW(t, ls, err, "b while a holds")
	require.Equal(t, "", w.m.HGet("k", "b"), "a refused acquire leaves no trace")

	// Until the TTL runs out.
	w.elapse(ttlRW)
	acquireRW(t, b, "k")
}

// The "malicious unlock" (恶意解锁) of 《分布式锁-By Redis》: another owner's
// release is refused, with an error that is an ErrNotHeld and says it is
// someone else's lock.
func TestReentrantForeignUnlockRefused(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.locker("reentrant", "a"), w.locker("reentrant", "b")
	ctx := context.Background()

	la := acquireRW(t, a, "k")
	err := b.Release(ctx, la) // even with a's own lease in hand
	require.ErrorIs(t, err, lock.ErrNotOwner)
	require.ErrorIs(t, err, lock.ErrNotHeld)
	err = b.Release(ctx, lock.NewLease("k", "b", lock.Exclusive, w.clk.Now(), ttlRW))
	require.ErrorIs(t, err, lock.ErrNotOwner)
	require.Equal(t, "1", w.m.HGet("k", "a"), "a's hold is untouched")

	require.NoError(t, a.Release(ctx, la))

	// Once the lock is gone a release is ErrNotHeld, but not someone else's.
	err = a.Release(ctx, la)
	require.ErrorIs(t, err, lock.ErrNotHeld)
	require.NotErrorIs(t, err, lock.ErrNotOwner)
}

func TestReentrantExtend(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.locker("reentrant", "a"), w.locker("reentrant", "b")
	ctx := context.Background()

	l := acquireRW(t, a, "k")
	w.elapse(ttlRW / 2)
	require.NoError(t, a.(lock.Extender).Extend(ctx, l))
	require.Equal(t, ttlRW, w.m.TTL("k"))
	start, _ := l.Window()
	require.Equal(t, w.clk.Now(), start)

	require.ErrorIs(t, b.(lock.Extender).Extend(ctx, l), lock.ErrNotHeld, "another owner cannot extend")
	w.elapse(ttlRW)
	require.ErrorIs(t, a.(lock.Extender).Extend(ctx, l), lock.ErrNotHeld, "nor the owner once it expired")
}

// The watchdog-long-hold scenarios (with and without the watchdog) for this
// design: without the watchdog a hold longer than the TTL loses the lock; with
// it the lock stays for 10/3 TTL and the watchdog ends with the release.
func TestReentrantWatchdog(t *testing.T) {
	t.Run("without", func(t *testing.T) {
		w := newWorldRW(t)
		a, b := w.locker("reentrant", "a"), w.locker("reentrant", "b")
		acquireRW(t, a, "k")
		for range 3 {
			w.elapse(ttlRW / 3)
		}
		require.False(t, w.m.Exists("k"))
		acquireRW(t, b, "k")
	})
	t.Run("with", func(t *testing.T) {
		// Registered first, so it runs after the clients and the server
		// are closed: what is left then is ours.
		before := goleak.IgnoreCurrent()
		t.Cleanup(func() { goleak.VerifyNone(t, before) })
		w := newWorldRW(t)
		renewed := make(chan struct{}, 16)
		a := w.locker("reentrant", "a", watchdogRW(renewed))
		b := w.locker("reentrant", "b")
		ctx := context.Background()

		l := acquireRW(t, a, "k")
		keepRenewingRW(t, w, renewed, "k", 10)
		require.Positive(t, l.Remaining(w.clk.Now()))
		ls, err := b.Acquire(ctx, "k")
		refusedRW(t, ls, err, "b after 10/3 TTL of renewed holding")

		require.NoError(t, a.Release(ctx, l))
		require.Zero(t, w.clk.Sleeping(), "the watchdog stopped with the release")
		w.elapse(ttlRW)
		select {
		case <-renewed:
			t.Fatal("renewal after release")
		case <-time.After(20 * time.Millisecond):
		}
		acquireRW(t, b, "k")
	})
}

// With nested leases each lease's watchdog renews the one hash; releasing
// the inner lease stops only its own.
func TestReentrantWatchdogNested(t *testing.T) {
	w := newWorldRW(t)
	renewed := make(chan struct{}, 16)
	a := w.locker("reentrant", "a", watchdogRW(renewed))
	ctx := context.Background()

	outer := acquireRW(t, a, "k")
	inner := acquireRW(t, a, "k")
	w.clk.WaitSleeping(t, 2)
	require.NoError(t, a.Release(ctx, inner))
	require.Equal(t, 1, w.clk.Sleeping())
	keepRenewingRW(t, w, renewed, "k", 4)
	require.Equal(t, "1", w.m.HGet("k", "a"))
	require.NoError(t, a.Release(ctx, outer))
	require.Zero(t, w.clk.Sleeping())
	require.False(t, w.m.Exists("k"))
}
