package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

func TestSetnxExpireAcquireReleaseExpiry(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	var seen pointsStrings
	a := newLockerStrings(t, "setnx-expire", c, newClockStrings(0), seen.hook)
	b := newLockerStrings(t, "setnx-expire", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	require.True(t, la.Expires())
	require.Equal(t, la.Token, mustGetStrings(t, c, "k"))
	require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"))
	require.Equal(t, []lock.Point{vocab.PointBetweenSetnxAndExpire}, seen.list())

	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)

	require.NoError(t, a.Release(ctx, la))
	require.False(t, m.Exists("k"))
	require.Equal(t, []lock.Point{vocab.PointBetweenSetnxAndExpire, vocab.PointBeforeReleaseCommand}, seen.list())

	// The TTL frees a lock whose holder never releases.
	_, err = a.Acquire(ctx, "k")
	require.NoError(t, err)
	m.FastForward(ttlStrings)
	_, err = b.Acquire(ctx, "k")
	require.NoError(t, err)
}

// The first flaw in 《使用Redis实现分布式锁及其优化》: a crash between SETNX
// and EXPIRE leaves a key that never expires, and the lock is dead for
// everyone.
func TestSetnxExpireCrashBeforeExpireDeadlocks(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	c := client()
	a := newLockerStrings(t, "setnx-expire", c, newClockStrings(0), crashAtStrings(vocab.PointBetweenSetnxAndExpire, nil))
	b := newLockerStrings(t, "setnx-expire", client(), newClockStrings(0), nil)

	_, err := a.Acquire(ctx, "k")
	require.ErrorIs(t, err, errCrashStrings)
	require.EqualValues(t, -1, pttlStrings(t, c, "k"), "EXPIRE must not run after the crash")

	m.FastForward(time.Hour)
	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired, "deadlock: the key never expires")
}

// DEL unlock: a holder whose lease expired deletes the next owner's lock.
func TestSetnxExpireReleaseAfterExpiryDeletesOtherOwner(t *testing.T) {
	ctx := context.Background()
	m, client := newRedisStrings(t)
	a := newLockerStrings(t, "setnx-expire", client(), newClockStrings(0), nil)
	b := newLockerStrings(t, "setnx-expire", client(), newClockStrings(0), nil)
	cl := newLockerStrings(t, "setnx-expire", client(), newClockStrings(0), nil)

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	m.FastForward(ttlStrings)
	_, err = b.Acquire(ctx, "k")
	require.NoError(t, err)

	require.NoError(t, a.Release(ctx, la), "DEL does not check the owner")
	require.False(t, m.Exists("k"))
	_, err = cl.Acquire(ctx, "k")
	require.NoError(t, err, "a third client gets in while b still believes it holds the lock")
}
