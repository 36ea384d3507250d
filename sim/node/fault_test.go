package node_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

func withTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// eventually waits until f succeeds, for clients that must reconnect; it
// fails as hung after simtest.HangGuard.
func eventually(t *testing.T, what string, f func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(simtest.HangGuard)
	for {
		ctx, cancel := withTimeout(200 * time.Millisecond)
		err := f(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung: %s: still failing after %v: %v", what, simtest.HangGuard, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPauseHoldsCommandsUntilResume(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 2)
		n, cl := c.Node(0), cls[0]
		// Connect first: a fresh connection's handshake would be what the
		// pause holds, and the SET below would never be sent.
		ctx, cancel := withTimeout(simtest.HangGuard)
		require.NoError(t, cl.Ping(ctx).Err())
		cancel()
		require.NoError(t, n.(node.Pauser).Pause())
		require.NoError(t, n.(node.Pauser).Pause(), "second Pause")
		require.True(t, n.Up(), "a paused node is still up")

		ctx, cancel = withTimeout(100 * time.Millisecond)
		start := time.Now()
		err := cl.Set(ctx, "held", "v", 0).Err()
		cancel()
		require.Error(t, err, "a paused node answered")
		var netErr net.Error
		timedOut := errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
		require.True(t, timedOut, "want a timeout, got %v", err)
		require.GreaterOrEqual(t, time.Since(start), 90*time.Millisecond)

		// The other node is not affected.
		ctx, cancel = withTimeout(simtest.HangGuard)
		require.NoError(t, cls[1].Ping(ctx).Err())
		cancel()

		require.ErrorIs(t, n.FlushAll(), node.ErrNodePaused)

		require.NoError(t, n.(node.Pauser).Resume())
		require.NoError(t, n.(node.Pauser).Resume(), "second Resume")
		ctx, cancel = withTimeout(simtest.HangGuard)
		defer cancel()
		require.NoError(t, cl.Ping(ctx).Err(), "no answer after Resume")
		// The command sent while paused was read after Resume, as a stopped
		// process reads its socket buffer when it continues.
		eventually(t, "held SET applied", func(ctx context.Context) error {
			v, err := cl.Get(ctx, "held").Result()
			if err == nil && v != "v" {
				err = errors.New("wrong value " + v)
			}
			return err
		})
	})
}

func TestKillRestartLosesOrKeepsData(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 1)
		n, cl := c.Node(0), cls[0]
		ctx, cancel := withTimeout(simtest.HangGuard)
		defer cancel()
		require.NoError(t, cl.Set(ctx, "k", "v", 0).Err())

		require.NoError(t, n.(node.ProcessController).Kill())
		require.NoError(t, n.(node.ProcessController).Kill(), "second Kill")
		require.False(t, n.Up())
		require.Error(t, cl.Ping(ctx).Err(), "a killed node answered")
		require.ErrorIs(t, n.(node.Pauser).Pause(), node.ErrNodeDown)
		require.ErrorIs(t, n.FlushAll(), node.ErrNodeDown)

		require.NoError(t, n.(node.ProcessController).Restart(false))
		require.True(t, n.Up())
		require.ErrorIs(t, n.(node.ProcessController).Restart(false), node.ErrNodeRunning)
		// The old client reconnects to the same address by itself.
		eventually(t, "old client reconnects", func(ctx context.Context) error { return cl.Ping(ctx).Err() })
		require.Equal(t, int64(0), cl.Exists(ctx, "k").Val(), "Restart(false) kept the data")

		if b != node.BackendMiniredis {
			return // a redis-server keeps data only through persistence: see below
		}
		require.NoError(t, cl.Set(ctx, "k2", "v", 0).Err())
		require.NoError(t, n.(node.ProcessController).Kill())
		require.NoError(t, n.(node.ProcessController).Restart(true))
		eventually(t, "reconnect", func(ctx context.Context) error { return cl.Ping(ctx).Err() })
		require.Equal(t, "v", cl.Get(ctx, "k2").Val(), "Restart(true) lost the data")
	})
}

func TestRedisRestartKeepsWhatPersistenceWrote(t *testing.T) {
	for _, tc := range []struct {
		p    node.Persistence
		kept bool
	}{
		{node.PersistenceAlways, true},
		{node.PersistenceNone, false}, // nothing on disk: keepData has nothing to keep
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			c, cls := simtest.ClusterWith(t, node.ClusterConfig{Backend: node.BackendRedis, Nodes: 1, Persistence: tc.p})
			n, cl := c.Node(0), cls[0]
			ctx, cancel := withTimeout(simtest.HangGuard)
			defer cancel()
			require.NoError(t, cl.Set(ctx, "k", "v", 0).Err())
			require.NoError(t, n.(node.ProcessController).Kill())
			require.NoError(t, n.(node.ProcessController).Restart(true))
			eventually(t, "reconnect", func(ctx context.Context) error { return cl.Ping(ctx).Err() })
			got := cl.Exists(ctx, "k").Val() == 1
			require.Equal(t, tc.kept, got, "key kept across kill+restart(true)")

			if tc.kept { // and Restart(false) throws the files away
				require.NoError(t, n.(node.ProcessController).Kill())
				require.NoError(t, n.(node.ProcessController).Restart(false))
				eventually(t, "reconnect", func(ctx context.Context) error { return cl.Ping(ctx).Err() })
				require.Equal(t, int64(0), cl.Exists(ctx, "k").Val(), "Restart(false) kept the data")
			}
		})
	}
}

// A node clock keeps running while its node is down, so the keys a restart
// keeps have aged by the downtime and by any jump meanwhile, exactly once. On
// redis-server the applied TTL shift comes back from the AOF with the keys it
// shifted, so a restart neither repeats nor loses it.
func TestClockShiftSurvivesRestart(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		cfg := node.ClusterConfig{Backend: b, Nodes: 1}
		if b == node.BackendRedis {
			cfg.Persistence = node.PersistenceAlways
		}
		c, cls := simtest.ClusterWith(t, cfg)
		n, cl := c.Node(0), cls[0]
		ctx, cancel := withTimeout(simtest.HangGuard)
		defer cancel()
		require.NoError(t, cl.Set(ctx, "k", "v", 10*time.Second).Err())
		require.NoError(t, n.(node.ClockController).JumpClock(3*time.Second))
		require.NoError(t, n.(node.ProcessController).Kill())
		require.NoError(t, n.(node.ClockController).JumpClock(2*time.Second), "jump while down")
		require.NoError(t, n.(node.ProcessController).Restart(true))
		eventually(t, "reconnect", func(ctx context.Context) error { return cl.Ping(ctx).Err() })
		pttl, err := cl.PTTL(ctx, "k").Result()
		require.NoError(t, err)
		require.InDelta(t, 5*time.Second, pttl, float64(500*time.Millisecond), "TTL after 3s+2s of jumps")
		// Keys written after the restart owe nothing to earlier jumps.
		require.NoError(t, cl.Set(ctx, "fresh", "v", 10*time.Second).Err())
		require.NoError(t, n.(node.ClockController).JumpClock(time.Second))
		pttl, err = cl.PTTL(ctx, "fresh").Result()
		require.NoError(t, err)
		require.InDelta(t, 9*time.Second, pttl, float64(500*time.Millisecond))
		// Whatever the emulation keeps stays out of the clients' database.
		require.Equal(t, int64(2), cl.DBSize(ctx).Val())
	})
}

// FlushAll empties the node, and clock emulation keeps working after it.
func TestFlushAll(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 1)
		n, cl := c.Node(0), cls[0]
		ctx, cancel := withTimeout(simtest.HangGuard)
		defer cancel()
		require.NoError(t, cl.Set(ctx, "k", "v", 0).Err())
		require.NoError(t, n.(node.ClockController).JumpClock(time.Second))
		require.NoError(t, n.FlushAll())
		require.Equal(t, int64(0), cl.DBSize(ctx).Val())
		require.NoError(t, cl.Set(ctx, "k", "v", 10*time.Second).Err())
		require.NoError(t, n.(node.ClockController).JumpClock(11*time.Second))
		require.Equal(t, int64(0), cl.Exists(ctx, "k").Val(), "jump after FlushAll not applied")
	})
}

func TestLuaRunsOnEveryBackend(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 1)
		ctx, cancel := withTimeout(simtest.HangGuard)
		defer cancel()
		s := redis.NewScript(`return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 1000) and 1 or 0`)
		v, err := s.Run(ctx, cls[0], []string{"lock"}, "tok").Result()
		require.NoError(t, err)
		require.Equal(t, int64(1), v)
		require.Equal(t, int64(0), s.Run(ctx, cls[0], []string{"lock"}, "tok").Val())
		require.NotEmpty(t, c.Node(0).Emulated())
	})
}
