package lock_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

func TestLuaSetnxAcquireIsOneStep(t *testing.T) {
	for _, name := range []string{"lua-setnx", "lua-setnx-del"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			m, client := newRedisStrings(t)
			c := client()
			var seen pointsStrings
			a := newLockerStrings(t, name, c, newClockStrings(0), seen.hook)
			b := newLockerStrings(t, name, client(), newClockStrings(0), nil)

			la, err := a.Acquire(ctx, "k")
			require.NoError(t, err)
			require.Empty(t, seen.list(), "no point inside the acquire: there is nothing to fall between")
			require.Equal(t, la.Token, mustGetStrings(t, c, "k"))
			require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"), "key and TTL arrive together")

			_, err = b.Acquire(ctx, "k")
			require.ErrorIs(t, err, lock.ErrNotAcquired)

			require.NoError(t, a.Release(ctx, la))
			require.False(t, m.Exists("k"))
			require.Equal(t, []lock.Point{vocab.PointBeforeReleaseCommand}, seen.list())

			_, err = a.Acquire(ctx, "k")
			require.NoError(t, err)
			m.FastForward(ttlStrings)
			_, err = b.Acquire(ctx, "k")
			require.NoError(t, err, "the TTL frees the lock")
		})
	}
}

// After a's lease expired and b took the lock, a's release must leave b's
// lock alone (compare-and-delete); the DEL variant removes it (the article's
// 解锁漏洞).
func TestLuaSetnxReleaseAfterExpiry(t *testing.T) {
	for _, tc := range []struct {
		name        string
		deletesBs   bool
		releaseErrs error
	}{
		{"lua-setnx", false, lock.ErrNotHeld},
		{"lua-setnx-del", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			m, client := newRedisStrings(t)
			c := client()
			a := newLockerStrings(t, tc.name, client(), newClockStrings(0), nil)
			b := newLockerStrings(t, tc.name, client(), newClockStrings(0), nil)

			la, err := a.Acquire(ctx, "k")
			require.NoError(t, err)
			m.FastForward(ttlStrings)
			lb, err := b.Acquire(ctx, "k")
			require.NoError(t, err)

			err = a.Release(ctx, la)
			if tc.releaseErrs != nil {
				require.ErrorIs(t, err, tc.releaseErrs)
			} else {
				require.NoError(t, err)
			}
			if tc.deletesBs {
				require.False(t, m.Exists("k"), "b's lock was deleted")
				return
			}
			require.Equal(t, lb.Token, mustGetStrings(t, c, "k"), "b's lock is untouched")
		})
	}
}

func TestLuaSetnxExtend(t *testing.T) {
	for _, name := range []string{"lua-setnx", "lua-setnx-del"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			m, client := newRedisStrings(t)
			c := client()
			clk := newClockStrings(0)
			a := newLockerStrings(t, name, c, clk, nil)
			b := newLockerStrings(t, name, client(), newClockStrings(0), nil)
			ext, ok := a.(lock.Extender)
			require.True(t, ok)

			la, err := a.Acquire(ctx, "k")
			require.NoError(t, err)
			m.FastForward(ttlStrings / 2)
			clk.Advance(ttlStrings / 2)
			require.NoError(t, ext.Extend(ctx, la))
			require.EqualValues(t, ttlStrings.Milliseconds(), pttlStrings(t, c, "k"))
			start, _ := la.Window()
			require.Equal(t, clk.Now(), start, "the validity is measured from the extend")

			m.FastForward(ttlStrings)
			_, err = b.Acquire(ctx, "k")
			require.NoError(t, err)
			require.ErrorIs(t, ext.Extend(ctx, la), lock.ErrNotHeld, "an expired lease cannot extend another owner's lock")
		})
	}
}
