package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

func TestNaiveAcquireReleaseWithoutTTL(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	a := newLockerStrings(t, "naive", c, newClockStrings(0), nil)
	b := newLockerStrings(t, "naive", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.False(t, la.Expires(), "naive lease must not expire")
	require.Equal(t, la.Token, mustGetStrings(t, c, "k"))
	require.EqualValues(t, -1, pttlStrings(t, c, "k"), "naive SET sets no TTL")

	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)

	// No TTL: an hour later the lock is still taken.
	m.FastForward(time.Hour)
	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)

	require.NoError(t, a.Release(ctx, la))
	require.False(t, m.Exists("k"))
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NotEqual(t, la.Token, lb.Token)
}

// The design's flaw: EXISTS and SET are two steps. Client a pauses between
// them; b takes the lock meanwhile; a resumes and takes it too.
func TestNaiveRaceBetweenExistsAndSet(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	c := client()
	pause := newPauseStrings(vocab.PointBetweenExistsAndSet)
	a := newLockerStrings(t, "naive", client(), newClockStrings(0), pause.hook)
	b := newLockerStrings(t, "naive", client(), newClockStrings(0), nil)

	resA := acquireAsyncStrings(a, "k")
	<-pause.arrived // a saw the key absent

	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)

	close(pause.resume)
	ra := <-resA
	require.NoError(t, ra.err, "a's SET overwrites b's lock")
	require.Equal(t, ra.lease.Token, mustGetStrings(t, c, "k"))
	require.NotEqual(t, lb.Token, ra.lease.Token)
	// Both hold the lock: mutual exclusion is gone.
}

// A crash at the point stops the SET: nothing is written.
func TestNaiveCrashBetweenExistsAndSet(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	var seen pointsStrings
	a := newLockerStrings(t, "naive", client(), newClockStrings(0), crashAtStrings(vocab.PointBetweenExistsAndSet, &seen))

	_, err := a.Acquire(ctx, "k")
	require.ErrorIs(t, err, errCrashStrings)
	require.NotErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, []lock.Point{vocab.PointBetweenExistsAndSet}, seen.list())
	require.False(t, m.Exists("k"), "SET must not run after the crash")
}

// DEL unlock: a stale lease (here released twice) deletes the next owner's
// lock.
func TestNaiveStaleReleaseDeletesOtherOwner(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	a := newLockerStrings(t, "naive", client(), newClockStrings(0), nil)
	b := newLockerStrings(t, "naive", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, a.Release(ctx, la))
	_, err = b.Acquire(ctx, "k")
	require.NoError(t, err)

	require.NoError(t, a.Release(ctx, la), "DEL does not check the owner")
	require.False(t, m.Exists("k"), "b's lock is gone")

	// With nothing there, DEL removes nothing: that is a definite ErrNotHeld.
	require.ErrorIs(t, a.Release(ctx, la), lock.ErrNotHeld)
}
