package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func TestRWLockDataLayout(t *testing.T) {
	w := newWorldRW(t)
	r, wr := w.reader("rwlock", "r"), w.reader("rwlock", "w")
	ctx := context.Background()

	lr := acquireReadRW(t, r, "k")
	require.True(t, w.m.Exists("k:read"))
	require.False(t, w.m.Exists("k:write"))
	require.False(t, w.m.Exists("k"))
	require.Equal(t, ttlRW, w.m.TTL("k:read"))
	require.NoError(t, r.Release(ctx, lr))
	require.False(t, w.m.Exists("k:read"))

	lw := acquireRW(t, wr, "k")
	require.True(t, w.m.Exists("k:write"))
	require.False(t, w.m.Exists("k:read"))
	require.Equal(t, ttlRW, w.m.TTL("k:write"))
	require.NoError(t, wr.Release(ctx, lw))
	require.False(t, w.m.Exists("k:write"))
}

// The admitted flaw of 《Redis 分布式读写锁》 (scenario
// rw-reader-deletes-reader): all readers share one read key, so the first
// reader to leave deletes it and a writer enters while the other reader still
// reads.
func TestRWLockReaderUnlockFreesOtherReadersHold(t *testing.T) {
	w := newWorldRW(t)
	a, b, wr := w.reader("rwlock", "a"), w.reader("rwlock", "b"), w.reader("rwlock", "w")
	ctx := context.Background()

	la := acquireReadRW(t, a, "k")
	lb := acquireReadRW(t, b, "k")
	require.NoError(t, a.Release(ctx, la))

	require.Positive(t, lb.Remaining(w.clk.Now()), "b still holds its read lease")
	acquireRW(t, wr, "k") // the flaw: a writer beside a live reader

	// b's own unlock finds nothing left to delete.
	require.ErrorIs(t, b.Release(ctx, lb), lock.ErrNotHeld)
}

// A later reader resets the shared key's TTL, stretching earlier readers'
// marker; their leases still end at their own TTL.
func TestRWLockReaderRefreshesSharedTTL(t *testing.T) {
	w := newWorldRW(t)
	a, b := w.reader("rwlock", "a"), w.reader("rwlock", "b")
	acquireReadRW(t, a, "k")
	w.elapse(ttlRW / 2)
	require.Equal(t, ttlRW/2, w.m.TTL("k:read"))
	acquireReadRW(t, b, "k")
	require.Equal(t, ttlRW, w.m.TTL("k:read"))
}

// The write unlock is a plain DEL: a writer whose lease expired deletes its
// successor's write key when its release finally arrives.
func TestRWLockLateWriterUnlockDeletesSuccessor(t *testing.T) {
	w := newWorldRW(t)
	w1, w2, w3 := w.reader("rwlock", "w1"), w.reader("rwlock", "w2"), w.reader("rwlock", "w3")
	ctx := context.Background()

	l1 := acquireRW(t, w1, "k")
	w.elapse(ttlRW + time.Millisecond)
	l2 := acquireRW(t, w2, "k")
	require.NoError(t, w1.Release(ctx, l1), "DEL reports success: it deleted w2's key")
	require.Positive(t, l2.Remaining(w.clk.Now()))
	acquireRW(t, w3, "k") // w3 beside w2
}
