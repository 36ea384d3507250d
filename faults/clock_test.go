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
		set := time.Now()
		require.NoError(t, cl.Set(ctx, "k", "v", 2*time.Second).Err())
		// At 10x a 2s key lives 200ms of true time.
		for cl.Get(ctx, "k").Err() == nil {
			require.Less(t, time.Since(set), time.Second, "a 2s key still there after 1s at 10x")
			time.Sleep(5 * time.Millisecond)
		}
		assert.GreaterOrEqual(t, time.Since(set), 150*time.Millisecond, "gone too early even for 10x")
		stop(t, w, f)
		require.NoError(t, cl.Set(ctx, "k", "v", time.Second).Err())
		set = time.Now()
		time.Sleep(20 * time.Millisecond)
		ttl, err := cl.PTTL(ctx, "k").Result()
		require.NoError(t, err)
		// At 10x 20ms would have cost 200ms of TTL; at 1x about 20ms (on
		// redis-server plus a last shift owed from before the heal, up to
		// 9 x the 2ms shift period and scheduling delays).
		assert.Greater(t, ttl, time.Second-time.Since(set)-100*time.Millisecond, "after the heal the node clock runs at 1x")
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
				assert.WithinDuration(t, time.Now(), c1.Clock.Now(), 10*time.Millisecond, "healed: back in step")
				_, err = ls[0].Acquire(ctx, "k2")
				require.NoError(t, err)
				_, err = ls[1].Acquire(ctx, "k2")
				require.True(t, errors.Is(err, lock.ErrNotAcquired), "healed: respects the lock again (%v)", err)
			})
		})
	}
}
