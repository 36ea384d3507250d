package lock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

const toleranceStrings = time.Second // the article's allowance, the default

// stampStrings is the value a client whose clock reads epoch+offset stores.
func stampStrings(offset time.Duration) string {
	return strconv.FormatInt(epochStrings.Add(offset+ttlStrings).UnixMilli(), 10)
}

func TestSetnxGetsetStoresClientExpiryStamp(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	var seen pointsStrings
	a := newLockerStrings(t, "setnx-getset", c, newClockStrings(0), seen.hook)
	b := newLockerStrings(t, "setnx-getset", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, stampStrings(0), la.Token, "the token is the stored expiry stamp")
	require.Equal(t, la.Token, mustGetStrings(t, c, "k"))
	require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"), "the article also sets a Redis TTL")
	require.Equal(t, []lock.Point{vocab.PointBetweenSetnxAndExpire}, seen.list())
	require.Equal(t, epochStrings.Add(ttlStrings-ttlStrings/100), la.Deadline())

	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)

	require.NoError(t, a.Release(ctx, la))
	require.False(t, m.Exists("k"))

	// The Redis TTL frees it.
	_, err = a.Acquire(ctx, "k")
	require.NoError(t, err)
	m.FastForward(ttlStrings)
	_, err = b.Acquire(ctx, "k")
	require.NoError(t, err)
}

// The article's recovery: a holder crashed between SETNX and EXPIRE leaves a
// key without TTL, and another client takes it over with GETSET once the
// stamp plus the tolerance lies in its past, then gives it a TTL again.
func TestSetnxGetsetRecoversKeyWithoutTTL(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	c := client()
	crashed := newLockerStrings(t, "setnx-getset", c, newClockStrings(0), crashAtStrings(vocab.PointBetweenSetnxAndExpire, nil))
	_, err := crashed.Acquire(ctx, "k")
	require.ErrorIs(t, err, errCrashStrings)
	require.EqualValues(t, -1, pttlStrings(t, c, "k"))

	clk := newClockStrings(ttlStrings + toleranceStrings)
	var seen pointsStrings
	b := newLockerStrings(t, "setnx-getset", client(), clk, seen.hook)
	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired, "stamp + tolerance is not yet in the past")
	require.Empty(t, seen.list())

	clk.Advance(time.Millisecond)
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, []lock.Point{vocab.PointBetweenGetAndGetset, vocab.PointBetweenGetsetExpire}, seen.list())
	require.Equal(t, stampStrings(ttlStrings+toleranceStrings+time.Millisecond), lb.Token)
	require.Equal(t, lb.Token, mustGetStrings(t, c, "k"))
	require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"))
}

// Scenario getset-client-clock-ahead: a client whose clock runs ahead by more
// than TTL + tolerance judges a live lock expired and takes it.
func TestSetnxGetsetClockAheadStealsLiveLock(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	c := client()
	clkA := newClockStrings(0)
	a := newLockerStrings(t, "setnx-getset", c, clkA, nil)
	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)

	near := newLockerStrings(t, "setnx-getset", client(), newClockStrings(ttlStrings+toleranceStrings), nil)
	_, err = near.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired, "ahead by exactly TTL + tolerance is still refused")

	ahead := newLockerStrings(t, "setnx-getset", client(), newClockStrings(ttlStrings+toleranceStrings+time.Millisecond), nil)
	require.Positive(t, pttlStrings(t, c, "k"), "the lock is live in Redis")
	lb, err := ahead.Acquire(ctx, "k")
	require.NoError(t, err, "the flaw: a live lock is stolen")
	require.Positive(t, la.Remaining(clkA.Now()), "a still holds a valid lease by its own clock")
	require.Equal(t, lb.Token, mustGetStrings(t, c, "k"))
}

// Two contenders read the same stale stamp and both GETSET: only the one
// whose GETSET returns the stamp it read wins.
func TestSetnxGetsetRaceHasOneWinner(t *testing.T) {
	ctx := context.Background()
	_, client := newRedisStrings(t)
	c := client()
	crashed := newLockerStrings(t, "setnx-getset", c, newClockStrings(0), crashAtStrings(vocab.PointBetweenSetnxAndExpire, nil))
	_, err := crashed.Acquire(ctx, "k")
	require.ErrorIs(t, err, errCrashStrings)
	stale := mustGetStrings(t, c, "k")

	late := ttlStrings + toleranceStrings + time.Second
	pb := newPauseStrings(vocab.PointBetweenGetAndGetset)
	pc := newPauseStrings(vocab.PointBetweenGetAndGetset)
	b := newLockerStrings(t, "setnx-getset", client(), newClockStrings(late), pb.hook)
	cl := newLockerStrings(t, "setnx-getset", client(), newClockStrings(late+time.Millisecond), pc.hook)
	resB := acquireAsyncStrings(b, "k")
	resC := acquireAsyncStrings(cl, "k")
	<-pb.arrived
	<-pc.arrived // both have read the stale stamp
	require.Equal(t, stale, mustGetStrings(t, c, "k"))
	close(pb.resume)
	close(pc.resume)
	rb, rc := <-resB, <-resC

	var winners []*lock.Lease
	for _, r := range []acquireResultStrings{rb, rc} {
		if r.err == nil {
			winners = append(winners, r.lease)
			continue
		}
		require.ErrorIs(t, r.err, lock.ErrNotAcquired)
	}
	require.Len(t, winners, 1, "exactly one contender wins the GETSET race")
	// The loser's GETSET still wrote its stamp (the article accepts the
	// small error), so the value is one of the two new stamps.
	require.Contains(t, []string{stampStrings(late), stampStrings(late + time.Millisecond)}, mustGetStrings(t, c, "k"))
}

// Crashes at the later points stop the later steps.
func TestSetnxGetsetCrashAtInternalPoints(t *testing.T) {
	ctx := context.Background()
	late := ttlStrings + toleranceStrings + time.Second
	for _, tc := range []struct {
		point     lock.Point
		wantValue func(stale string) string
	}{
		// GETSET must not run: the stale stamp stays, still without TTL.
		{vocab.PointBetweenGetAndGetset, func(stale string) string { return stale }},
		// GETSET ran (and cleared any TTL); EXPIRE must not run.
		{vocab.PointBetweenGetsetExpire, func(string) string { return stampStrings(late) }},
	} {
		t.Run(string(tc.point), func(t *testing.T) {
			_, client := newRedisStrings(t)
			c := client()
			crashed := newLockerStrings(t, "setnx-getset", c, newClockStrings(0), crashAtStrings(vocab.PointBetweenSetnxAndExpire, nil))
			_, err := crashed.Acquire(ctx, "k")
			require.ErrorIs(t, err, errCrashStrings)
			stale := mustGetStrings(t, c, "k")

			b := newLockerStrings(t, "setnx-getset", client(), newClockStrings(late), crashAtStrings(tc.point, nil))
			_, err = b.Acquire(ctx, "k")
			require.ErrorIs(t, err, errCrashStrings)
			require.Equal(t, tc.wantValue(stale), mustGetStrings(t, c, "k"))
			require.EqualValues(t, -1, pttlStrings(t, c, "k"))
		})
	}
}

// DEL unlock (the article's 解锁漏洞): an expired holder deletes the next
// owner's lock.
func TestSetnxGetsetReleaseAfterExpiryDeletesOtherOwner(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	a := newLockerStrings(t, "setnx-getset", client(), newClockStrings(0), nil)
	b := newLockerStrings(t, "setnx-getset", client(), newClockStrings(ttlStrings), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	m.FastForward(ttlStrings)
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NotEqual(t, la.Token, lb.Token)

	require.NoError(t, a.Release(ctx, la), "DEL does not check the owner")
	require.False(t, m.Exists("k"), "b's lock is gone")
}
