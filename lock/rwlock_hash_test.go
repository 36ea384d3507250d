package lock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func msRW(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func TestRWHashDataLayout(t *testing.T) {
	w := newWorldRW(t)
	r, wr := w.reader("rwlock-hash", "r"), w.reader("rwlock-hash", "w")
	ctx := context.Background()

	lr := acquireReadRW(t, r, "k")
	require.Equal(t, msRW(epochRW), lr.Token, "token is the client-clock ms timestamp")
	keys, err := w.m.HKeys("k")
	require.NoError(t, err)
	require.Equal(t, []string{"read"}, keys)
	require.Equal(t, msRW(epochRW), w.m.HGet("k", "read"))
	require.Equal(t, ttlRW, w.m.TTL("k"))
	require.NoError(t, r.Release(ctx, lr))
	require.False(t, w.m.Exists("k"), "HDEL of the last field removes the hash")

	w.clk.Advance(5 * time.Millisecond)
	lw := acquireRW(t, wr, "k")
	require.Equal(t, msRW(w.clk.Now()), lw.Token)
	require.Equal(t, lw.Token, w.m.HGet("k", "write"))
	require.Equal(t, "", w.m.HGet("k", "read"))
	require.NoError(t, wr.Release(ctx, lw))
	require.False(t, w.m.Exists("k"))
}

// The hash version of 《Redis 分布式读写锁》 (scenario
// rw-reader-deletes-reader): the read field holds only the latest reader's
// timestamp. That reader's unlock removes the read hold of every reader, so a
// writer enters while an earlier reader still reads.
func TestRWHashLatestReaderUnlockFreesOtherReadersHold(t *testing.T) {
	w := newWorldRW(t)
	a, b, wr := w.reader("rwlock-hash", "a"), w.reader("rwlock-hash", "b"), w.reader("rwlock-hash", "w")
	ctx := context.Background()

	lb := acquireReadRW(t, b, "k")
	w.clk.Advance(time.Millisecond)
	la := acquireReadRW(t, a, "k") // overwrites the read field with a's timestamp
	require.Equal(t, la.Token, w.m.HGet("k", "read"))

	require.NoError(t, a.Release(ctx, la))
	require.Positive(t, lb.Remaining(w.clk.Now()), "b still holds its read lease")
	acquireRW(t, wr, "k") // the flaw: a writer beside a live reader

	require.ErrorIs(t, b.Release(ctx, lb), lock.ErrNotHeld)
}

// The other side of the same flaw: an earlier reader cannot unlock at all,
// its compare-on-delete finds the later reader's timestamp.
func TestRWHashEarlierReaderUnlockIsNoop(t *testing.T) {
	w := newWorldRW(t)
	a, b, wr := w.reader("rwlock-hash", "a"), w.reader("rwlock-hash", "b"), w.reader("rwlock-hash", "w")
	ctx := context.Background()

	la := acquireReadRW(t, a, "k")
	w.clk.Advance(time.Millisecond)
	lb := acquireReadRW(t, b, "k")

	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)
	require.Equal(t, lb.Token, w.m.HGet("k", "read"))
	ls, err := wr.Acquire(ctx, "k")
	refusedRW(t, ls, err, "writer while b's read field is fresh")
}

// Staleness is judged by the acquirer's clock: a writer whose clock runs a
// TTL ahead takes the lock from a live writer although Redis still has the
// hash.
func TestRWHashClientClockAheadSeesLiveHoldAsStale(t *testing.T) {
	w := newWorldRW(t)
	w1 := w.reader("rwlock-hash", "w1")
	ahead := newClockRW()
	ahead.Advance(ttlRW + time.Millisecond)
	w2 := w.reader("rwlock-hash", "w2", func(o *lock.Options) { o.Clock = ahead })
	ctx := context.Background()

	l1 := acquireRW(t, w1, "k")
	require.Positive(t, l1.Remaining(w.clk.Now()))
	l2 := acquireRW(t, w2, "k")
	require.NotEqual(t, l1.Token, l2.Token)
	require.Equal(t, l2.Token, w.m.HGet("k", "write"))

	// w1's release compares before it deletes, so w2's hold is spared.
	require.ErrorIs(t, w1.Release(ctx, l1), lock.ErrNotHeld)
	require.Equal(t, l2.Token, w.m.HGet("k", "write"))
}
