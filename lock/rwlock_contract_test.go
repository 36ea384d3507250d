package lock_test

// The promises every read/write design keeps without faults. The designs'
// flaws (and the counted design's fix) are in their own test files.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

func forEachRW(t *testing.T, f func(t *testing.T, w *worldRW, name string)) {
	for _, name := range rwDesigns {
		t.Run(name, func(t *testing.T) { f(t, newWorldRW(t), name) })
	}
}

func TestRWInfoMatchesInterfaces(t *testing.T) {
	w := newWorldRW(t)
	for _, name := range append([]string{"reentrant"}, rwDesigns...) {
		info, err := lock.Lookup(name)
		require.NoError(t, err)
		l := w.locker(name, "a")
		_, isRW := l.(lock.ReadLocker)
		_, isExt := l.(lock.Extender)
		require.Equal(t, info.ReadWrite, isRW, "%s: ReadWrite flag", name)
		require.Equal(t, info.Extendable, isExt, "%s: Extendable flag", name)
		require.True(t, info.Expires, name)
		require.NotEmpty(t, info.Summary, name)
		require.NotEmpty(t, info.Weakness, name)
		require.NotEmpty(t, info.Source, name)
		require.Equal(t, name, l.Name())
	}
}

func TestRWReadersShare(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		a, b := w.reader(name, "a"), w.reader(name, "b")
		la := acquireReadRW(t, a, "k")
		w.clk.Advance(time.Millisecond)
		lb := acquireReadRW(t, b, "k")
		require.Positive(t, la.Remaining(w.clk.Now()))
		require.Positive(t, lb.Remaining(w.clk.Now()))
	})
}

func TestRWWriterRefusedWhileReaderHolds(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		r, wr := w.reader(name, "r"), w.reader(name, "w")
		lr := acquireReadRW(t, r, "k")
		ls, err := wr.Acquire(context.Background(), "k")
		refusedRW(t, ls, err, "writer while a reader holds")

		// Once the only reader has left, the writer gets in.
		require.NoError(t, r.Release(context.Background(), lr))
		acquireRW(t, wr, "k")
	})
}

func TestRWReaderRefusedWhileWriterHolds(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		wr, r := w.reader(name, "w"), w.reader(name, "r")
		lw := acquireRW(t, wr, "k")
		ls, err := r.AcquireRead(context.Background(), "k")
		refusedRW(t, ls, err, "reader while a writer holds")

		require.NoError(t, wr.Release(context.Background(), lw))
		acquireReadRW(t, r, "k")
	})
}

func TestRWWriterExclusive(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		w1, w2 := w.reader(name, "w1"), w.reader(name, "w2")
		l1 := acquireRW(t, w1, "k")
		ls, err := w2.Acquire(context.Background(), "k")
		refusedRW(t, ls, err, "second writer")

		// Another key is another lock.
		acquireRW(t, w2, "other")

		require.NoError(t, w1.Release(context.Background(), l1))
		acquireRW(t, w2, "k")
	})
}

func TestRWExpiryFreesHolds(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		r, wr := w.reader(name, "r"), w.reader(name, "w")

		// A reader that never releases blocks writers for one TTL only.
		acquireReadRW(t, r, "k")
		w.elapse(ttlRW - time.Millisecond)
		ls, err := wr.Acquire(context.Background(), "k")
		refusedRW(t, ls, err, "writer just before the read hold expires")
		w.elapse(2 * time.Millisecond)
		lw := acquireRW(t, wr, "k")
		require.Positive(t, lw.Remaining(w.clk.Now()))

		// A writer that never releases blocks readers for one TTL only.
		w.elapse(ttlRW - time.Millisecond)
		ls, err = r.AcquireRead(context.Background(), "k")
		refusedRW(t, ls, err, "reader just before the write hold expires")
		w.elapse(2 * time.Millisecond)
		acquireReadRW(t, r, "k")
	})
}

func TestRWLeaseValidityFollowsTTL(t *testing.T) {
	forEachRW(t, func(t *testing.T, w *worldRW, name string) {
		r := w.reader(name, "r")
		l := acquireReadRW(t, r, "k")
		require.True(t, l.Expires())
		start, validity := l.Window()
		require.Equal(t, epochRW, start)
		require.Equal(t, lock.Validity(ttlRW, 0, 0.01), validity)
	})
}
