package lock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/locksim/locksim/lock"
)

// TestVariantsAreLookedUpNotListed: a variant is found by name and says
// which design it varies, and stays out of Algorithms, so the catalogue's
// default design lists are the built-in designs alone.
func TestVariantsAreLookedUpNotListed(t *testing.T) {
	require.NotEmpty(t, lock.Variants())
	for _, v := range lock.Variants() {
		i, err := lock.Lookup(v.Name)
		require.NoError(t, err)
		require.Equal(t, v.Name, i.Name)
		require.True(t, lock.IsVariant(v.Name))
		require.True(t, lock.Builtin(v.Name), "every locksim binary knows it")
		require.NotContains(t, lock.Names(), v.Name)
		require.Contains(t, i.Weakness, "a variant of ")
	}
	require.False(t, lock.IsVariant("reentrant"))
}

// erred signals each command that came back with WRONGTYPE: a test waits
// on it to know that the renewal it made fail has returned.
type erred chan struct{}

func (e erred) DialHook(next redis.DialHook) redis.DialHook { return next }
func (e erred) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && strings.Contains(err.Error(), "WRONGTYPE") {
			select {
			case e <- struct{}{}:
			default:
			}
		}
		return err
	}
}
func (e erred) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestWatchdogAfterAFailedRenewal: one renewal fails with an error (an
// unknown outcome). reentrant's watchdog renews again a period later and
// keeps the lock; reentrant-renewal-gives-up's sends nothing more, and the
// lock expires at the last renewal's TTL (redisson/redisson #775). Both
// tell the failed renewal as a renewal of unknown outcome.
func TestWatchdogAfterAFailedRenewal(t *testing.T) {
	for _, c := range []struct {
		design string
		again  bool
	}{{"reentrant", true}, {"reentrant-renewal-gives-up", false}} {
		t.Run(c.design, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, before) })
			w := newWorldRW(t)
			failed := make(erred, 1)
			cl := redis.NewClient(&redis.Options{Addr: w.m.Addr(), ContextTimeoutEnabled: true})
			cl.AddHook(failed)
			t.Cleanup(func() { _ = cl.Close() })
			renewed := make(chan struct{}, 16)
			told := make(chan lock.Renewal, 16)
			o := lock.Options{Owner: "a", TTL: ttlRW, NodeTimeout: 5 * time.Second, Clock: w.clk,
				Renewed: func(r lock.Renewal) { told <- r }}
			watchdogRW(renewed)(&o)
			a, err := lock.New(c.design, []redis.UniversalClient{cl}, o)
			require.NoError(t, err)
			l := acquireRW(t, a, "k")

			keepRenewingRW(t, w, renewed, "k", 1)
			w.clk.WaitSleeping(t, 1)
			// The key turns into a string for one period: the renewal
			// script's HEXISTS fails with WRONGTYPE, an error, not a
			// refusal; then the hash comes back with the TTL it had.
			ttl := w.m.TTL("k")
			w.m.Del("k")
			require.NoError(t, w.m.Set("k", "not a hash"))
			w.elapse(ttlRW / 3)
			select {
			case <-failed:
			case <-time.After(5 * time.Second):
				t.Fatal("the renewal did not fail")
			}
			// No point reports a renewal of unknown outcome: it is told
			// through Options.Renewed, so the history keeps it.
			select {
			case r := <-told:
				require.Same(t, l, r.Lease)
				require.Error(t, r.Err)
				require.NotErrorIs(t, r.Err, lock.ErrNotHeld)
				require.False(t, r.Sent.IsZero(), "when it was sent")
			case <-time.After(5 * time.Second):
				t.Fatal("the failed renewal was not told")
			}
			w.m.Del("k")
			w.m.HSet("k", "a", "1")
			w.m.SetTTL("k", ttl-ttlRW/3)
			if c.again {
				keepRenewingRW(t, w, renewed, "k", 3)
				require.True(t, w.m.Exists("k"), "renewed after the failure")
			} else {
				// A watchdog that went on would be asleep for its next
				// period within microseconds.
				require.Never(t, func() bool { return w.clk.Sleeping() > 0 }, 200*time.Millisecond, time.Millisecond, "the watchdog waits for another period")
				w.elapse(ttlRW)
				require.False(t, w.m.Exists("k"), "no renewal after the failure: the lock expired")
				select {
				case <-renewed:
					t.Fatal("a renewal after the watchdog gave up")
				default:
				}
			}
			if err := a.Release(context.Background(), l); c.again || !errors.Is(err, lock.ErrNotHeld) {
				require.NoError(t, err)
			}
		})
	}
}

// TestWaitUncheckedGrantsWithoutReplica: on a master with no replica, WAIT
// 1 answers 0. setpx-wait gives the key back and fails; setpx-wait-unchecked
// grants the lock all the same (redisson/redisson #3994).
func TestWaitUncheckedGrantsWithoutReplica(t *testing.T) {
	w := newWorldRW(t)
	ctx := context.Background()

	checked := w.locker("setpx-wait", "a", func(o *lock.Options) { o.NodeTimeout = 40 * time.Millisecond })
	ls, err := checked.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotReplicated)
	require.Nil(t, ls)
	require.False(t, w.m.Exists("k"), "setpx-wait gave its key back")

	unchecked := w.locker("setpx-wait-unchecked", "b", func(o *lock.Options) { o.NodeTimeout = 40 * time.Millisecond })
	ls, err = unchecked.Acquire(ctx, "k")
	require.NoError(t, err)
	require.True(t, w.m.Exists("k"))
	require.NoError(t, unchecked.Release(ctx, ls))
}
