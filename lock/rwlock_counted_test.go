package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func TestRWCountedDataLayout(t *testing.T) {
	w := newWorldRW(t)
	a, b, wr := w.reader("rwlock-counted", "a"), w.reader("rwlock-counted", "b"), w.reader("rwlock-counted", "w")
	ctx := context.Background()

	la1 := acquireReadRW(t, a, "k")
	la2 := acquireReadRW(t, a, "k")
	lb := acquireReadRW(t, b, "k")
	require.Equal(t, "a", la1.Token, "token is the owner")
	require.Equal(t, "read", w.m.HGet("k", "mode"))
	require.Equal(t, "2", w.m.HGet("k", "a"))
	require.Equal(t, "1", w.m.HGet("k", "b"))
	require.Equal(t, ttlRW, w.m.TTL("k"))

	require.NoError(t, a.Release(ctx, la2))
	require.Equal(t, "1", w.m.HGet("k", "a"))
	require.NoError(t, b.Release(ctx, lb))
	require.Equal(t, "", w.m.HGet("k", "b"))
	require.NoError(t, a.Release(ctx, la1))
	require.False(t, w.m.Exists("k"), "the last reader's unlock deletes the hash")

	lw := acquireRW(t, wr, "k")
	require.Equal(t, "write", w.m.HGet("k", "mode"))
	require.Equal(t, "1", w.m.HGet("k", "w"))
	require.NoError(t, wr.Release(ctx, lw))
	require.False(t, w.m.Exists("k"))
}

// rwlock-counted against the rw-reader-deletes-reader scenario: a reader's
// unlock decrements only its own count, so the writer stays out until the
// last reader has left.
func TestRWCountedReaderUnlockKeepsOtherReadersHold(t *testing.T) {
	w := newWorldRW(t)
	a, b, wr := w.reader("rwlock-counted", "a"), w.reader("rwlock-counted", "b"), w.reader("rwlock-counted", "w")
	ctx := context.Background()

	lb := acquireReadRW(t, b, "k")
	w.clk.Advance(time.Millisecond)
	la := acquireReadRW(t, a, "k")
	require.NoError(t, a.Release(ctx, la))

	ls, err := wr.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer while b still reads")
	require.Equal(t, "1", w.m.HGet("k", "b"))

	// Releasing a's lease again cannot touch b's hold either.
	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)
	ls, err = wr.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer after a's double release")

	require.NoError(t, b.Release(ctx, lb))
	acquireRW(t, wr, "k")
}

// A reader whose lease expired releases late, after a writer took the lock:
// the unlock is refused and the writer's hold is untouched.
func TestRWCountedLateReleaseSparesSuccessor(t *testing.T) {
	w := newWorldRW(t)
	r, wr, other := w.reader("rwlock-counted", "r"), w.reader("rwlock-counted", "w"), w.reader("rwlock-counted", "x")
	ctx := context.Background()

	lr := acquireReadRW(t, r, "k")
	w.elapse(ttlRW + time.Millisecond)
	acquireRW(t, wr, "k")
	require.ErrorIs(t, r.Release(ctx, lr), lock.ErrNotHeld)
	require.Equal(t, "write", w.m.HGet("k", "mode"))
	ls, err := other.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer beside the successor")
}

// A read lease released after the same owner moved on to a write hold must
// not unwind the write hold: release checks the mode too.
func TestRWCountedReleaseChecksMode(t *testing.T) {
	w := newWorldRW(t)
	a := w.reader("rwlock-counted", "a")
	ctx := context.Background()

	lr := acquireReadRW(t, a, "k")
	w.elapse(ttlRW + time.Millisecond)
	acquireRW(t, a, "k")
	require.ErrorIs(t, a.Release(ctx, lr), lock.ErrNotHeld)
	require.Equal(t, "1", w.m.HGet("k", "a"))
	require.Equal(t, "write", w.m.HGet("k", "mode"))
}

func TestRWCountedWriteNestsForSameOwnerOnly(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.reader("rwlock-counted", "a"), w.reader("rwlock-counted", "b")
	ctx := context.Background()

	l1 := acquireRW(t, a, "k")
	l2 := acquireRW(t, a, "k")
	require.Equal(t, "2", w.m.HGet("k", "a"))
	ls, err := b.Acquire(ctx, "k")
	refusedRW(t, ls, err, "another writer")
	ls, err = b.AcquireRead(ctx, "k")
	refusedRW(t, ls, err, "another reader")
	ls, err = a.AcquireRead(ctx, "k")
	refusedRW(t, ls, err, "no downgrade: the owner's own read while it writes")

	require.NoError(t, a.Release(ctx, l2))
	ls, err = b.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer after one of two levels")
	require.NoError(t, a.Release(ctx, l1))
	acquireRW(t, b, "k")
}

// The hash has one TTL: a client with a short TTL joining as a reader must
// not cut short the hold of a reader with a long TTL.
func TestRWCountedShortTTLReaderDoesNotShortenHold(t *testing.T) {
	w := newWorldRW(t)
	long := w.reader("rwlock-counted", "long", func(o *lock.Options) { o.TTL = 4 * ttlRW })
	short := w.reader("rwlock-counted", "short")

	acquireReadRW(t, long, "k")
	w.elapse(ttlRW)
	acquireReadRW(t, short, "k")
	require.Equal(t, 3*ttlRW, w.m.TTL("k"))
}

func TestRWCountedExtend(t *testing.T) {
	w := newWorldRW(t)
	a := w.reader("rwlock-counted", "a")
	ext := a.(lock.Extender)
	ctx := context.Background()

	l := acquireReadRW(t, a, "k")
	w.elapse(ttlRW / 2)
	require.NoError(t, ext.Extend(ctx, l))
	require.Equal(t, ttlRW, w.m.TTL("k"))
	start, _ := l.Window()
	require.Equal(t, w.clk.Now(), start, "the window moves with the renewal")

	w.elapse(ttlRW + time.Millisecond)
	require.ErrorIs(t, ext.Extend(ctx, l), lock.ErrNotHeld)
	require.False(t, w.m.Exists("k"))
}

func TestRWCountedWatchdogRenewsReadHold(t *testing.T) {
	w := newWorldRW(t)
	renewed := make(chan struct{}, 16)
	a := w.reader("rwlock-counted", "a", watchdogRW(renewed))
	wr := w.reader("rwlock-counted", "w")
	ctx := context.Background()

	l := acquireReadRW(t, a, "k")
	keepRenewingRW(t, w, renewed, "k", 10)

	ls, err := wr.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer after 10/3 TTL of renewed reading")
	require.NoError(t, a.Release(ctx, l))
	require.Zero(t, w.clk.Sleeping(), "the watchdog stopped with the release")
	acquireRW(t, wr, "k")
}
