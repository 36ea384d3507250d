package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

func TestClockJumpNodeExpiresKeysEarly(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, baseConfig(b, 1, 1))
		cl := direct(t, w, 0)
		ctx := context.Background()
		require.NoError(t, cl.Set(ctx, "short", "v", 5*time.Second).Err())
		require.NoError(t, cl.Set(ctx, "long", "v", 20*time.Second).Err())
		f := faults.ClockJumpNode{Node: 0, By: 10 * time.Second}
		start(t, w, f)
		require.ErrorIs(t, cl.Get(ctx, "short").Err(), redis.Nil, "a 5s key outlived a 10s jump")
		ttl, err := cl.PTTL(ctx, "long").Result()
		require.NoError(t, err)
		assert.InDelta(t, 10*time.Second, ttl, float64(time.Second), "the 20s key lost 10s")
		stop(t, w, f)
	})
}

func TestClockRateNodeExpiresKeysEarly(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, baseConfig(b, 1, 1))
		cl := direct(t, w, 0)
		ctx := context.Background()
		f := faults.ClockRateNode{Node: 0, Rate: 10}
		start(t, w, f)
		const ttl = 10 * time.Second
		set := time.Now()
		require.NoError(t, cl.Set(ctx, "k", "v", ttl).Err())
		// At 10x a 10s key lives 1s of true time. That it is gone before
		// its 10s passed in true time is the property (no machine is 10x
		// slower than itself); how soon after 1s is not.
		for cl.Get(ctx, "k").Err() == nil {
			require.Less(t, time.Since(set), ttl, "a 10s key outlived 10s of true time at 10x: the node clock did not run fast")
			time.Sleep(5 * time.Millisecond)
		}
		assert.GreaterOrEqual(t, time.Since(set), ttl/10*3/4, "gone too early even for 10x")
		stop(t, w, f)
		// After the heal the node clock runs at 1x: between two PTTLs the key
		// loses about the true time that passed between them, not 10 times
		// that. The true time is measured around both commands, so a loaded
		// machine only makes it larger (a shift still owed from before the
		// heal is far below the 5x margin).
		require.NoError(t, cl.Set(ctx, "k", "v", time.Minute).Err())
		before := time.Now()
		ttl1, err := cl.PTTL(ctx, "k").Result()
		require.NoError(t, err)
		time.Sleep(200 * time.Millisecond)
		ttl2, err := cl.PTTL(ctx, "k").Result()
		require.NoError(t, err)
		passed := time.Since(before)
		assert.Less(t, ttl1-ttl2, 5*passed, "after the heal the node clock runs at 1x: the key lost %v in %v", ttl1-ttl2, passed)
	})
}

// getsetLockers builds one setnx-getset locker per client, reading time
// through the client's clock as the simulator's clients do.
func getsetLockers(t *testing.T, w *sim.World) []lock.Locker {
	t.Helper()
	var out []lock.Locker
	for i := 0; i < w.Config().Clients; i++ {
		c, err := w.Client(i)
		require.NoError(t, err)
		o := lock.Options{TTL: 500 * time.Millisecond, Tolerance: time.Second, Clock: c.Clock}
		l, err := lock.New("setnx-getset", c.Conns(), o)
		require.NoError(t, err)
		out = append(out, l)
	}
	return out
}

func TestClientClockFaultsChangeWhatTheLockSees(t *testing.T) {
	for _, f := range []sim.Fault{
		faults.ClockSkewClient{Client: 1, Offset: 2 * time.Second},
		faults.ClockSkewClient{Client: 1, Offset: 500 * time.Millisecond, Rate: 1000},
		faults.ClockJumpClient{Client: 1, By: 2 * time.Second},
	} {
		t.Run(f.String(), func(t *testing.T) {
			simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
				cfg := baseConfig(b, 2, 1)
				cfg.Algorithm = "setnx-getset"
				w := world(t, cfg)
				ls := getsetLockers(t, w)
				ctx := context.Background()
				held, err := ls[0].Acquire(ctx, "k")
				require.NoError(t, err)
				_, err = ls[1].Acquire(ctx, "k")
				require.ErrorIs(t, err, lock.ErrNotAcquired, "in step, client 1 respects the live lock")
				start(t, w, f)
				time.Sleep(2 * time.Millisecond) // the fast clock needs a moment to get ahead
				stolen, err := ls[1].Acquire(ctx, "k")
				require.NoError(t, err, "client 1's clock is more than TTL + tolerance ahead: it takes the live lock")
				assert.NotEqual(t, held.Token, stolen.Token)
				stop(t, w, f)
				c1, _ := w.Client(1)
				// Read between two readings of true time, so a descheduled
				// test cannot stretch the gap; 10ms is the clock's offset
				// tolerance, not a bound on the machine's speed.
				before := time.Now()
				got := c1.Clock.Now()
				after := time.Now()
				assert.False(t, got.Before(before.Add(-10*time.Millisecond)) || got.After(after.Add(10*time.Millisecond)),
					"healed: back in step (client 1 reads %v, true time was %v to %v)", got, before, after)
				_, err = ls[0].Acquire(ctx, "k2")
				require.NoError(t, err)
				_, err = ls[1].Acquire(ctx, "k2")
				require.True(t, errors.Is(err, lock.ErrNotAcquired), "healed: respects the lock again (%v)", err)
			})
		})
	}
}
