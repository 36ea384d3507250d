package faults_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

func TestPausedNodeAnswersNothingUntilResumed(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, baseConfig(b, 1, 2))
		c0, c1 := conn(t, w, 0, 0), conn(t, w, 0, 1)
		for _, c := range []redis.UniversalClient{c0, c1} {
			_, err := ping(c, simtest.HangGuard) // connect first: the pause would hold the handshake
			require.NoError(t, err)
		}
		f := faults.PauseNode{Node: 0}
		start(t, w, f)
		_, err := ping(c0, 100*time.Millisecond)
		require.Error(t, err, "a paused node answered")
		assert.True(t, isTimeout(err), "%v", err)
		_, err = ping(c1, simtest.HangGuard)
		require.NoError(t, err, "node 1 is not paused")
		stop(t, w, f)
		eventually(t, "resumed", func() error {
			_, err := ping(c0, time.Second)
			return err
		})
	})
}

func TestKillNodeLosesOrKeepsTheKey(t *testing.T) {
	type kase struct {
		backend     sim.Backend
		persistence sim.Persistence
		keepData    bool
		kept        bool
	}
	for name, k := range map[string]kase{
		"miniredis lose":           {sim.BackendMiniredis, "", false, false},
		"miniredis keep":           {sim.BackendMiniredis, "", true, true},
		"redis none keep_data":     {sim.BackendRedis, sim.PersistenceNone, true, false},
		"redis unset keep_data":    {sim.BackendRedis, "", true, true}, // Resolve picks always
		"redis always lose":        {sim.BackendRedis, sim.PersistenceAlways, false, false},
		"redis always keep_data":   {sim.BackendRedis, sim.PersistenceAlways, true, true},
		"redis everysec keep_data": {sim.BackendRedis, sim.PersistenceEverySec, true, true},
	} {
		t.Run(name, func(t *testing.T) {
			if k.backend == sim.BackendRedis {
				simtest.RequireRedisServer(t)
			}
			f := faults.KillNode{Node: 0, RestartAfter: faults.StayDown, KeepData: k.keepData}
			cfg := baseConfig(k.backend, 1, 1)
			cfg.Cluster.Persistence = k.persistence
			// planned (never fired: started by hand below) so that the
			// configuration's defaults see it
			cfg.Faults = []sim.Planned{{Fault: f, Start: sim.Trigger{At: time.Hour}}}
			w := world(t, cfg)
			cl := direct(t, w, 0)
			ctx := context.Background()
			require.NoError(t, cl.Set(ctx, "lock", "v", time.Minute).Err())
			if k.persistence == sim.PersistenceEverySec {
				// always write()s and fsyncs the AOF before it replies.
				// everysec does not promise that much: while a background
				// fsync is still running (a busy disk), it postpones the
				// write for up to 2 s and replies anyway, so a kill in that
				// window loses an acknowledged write, as everysec allows.
				// What it does promise: once its AOF buffer is written out,
				// the write is in the file (the page cache survives a
				// process kill; fsync matters only when the host dies).
				waitAOFWritten(t, cl)
			}
			start(t, w, f)
			n, _ := w.Node(0)
			require.False(t, n.Up())
			_, err := ping(cl, 100*time.Millisecond)
			require.Error(t, err, "a killed node answered")
			stop(t, w, f)
			require.True(t, n.Up())
			var got error
			eventually(t, "restarted", func() error {
				ctx, cancel := ctxFor(time.Second)
				defer cancel()
				got = cl.Get(ctx, "lock").Err()
				if got == redis.Nil {
					return nil
				}
				return got
			})
			if k.kept {
				assert.NoError(t, got, "the key should have survived")
			} else {
				assert.ErrorIs(t, got, redis.Nil, "the key should be lost")
			}
		})
	}
}

func TestKillNodeRestartsAfter(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, baseConfig(b, 1, 1))
		n, _ := w.Node(0)
		f := faults.KillNode{Node: 0, RestartAfter: 50 * time.Millisecond, KeepData: true}
		killed := time.Now()
		start(t, w, f)
		require.False(t, n.Up())
		for !n.Up() {
			require.Less(t, time.Since(killed), simtest.HangGuard, "hung: not restarted")
			time.Sleep(2 * time.Millisecond)
		}
		assert.GreaterOrEqual(t, time.Since(killed), 50*time.Millisecond, "restarted before its 50ms were up")
		stop(t, w, f) // nothing left to do
		assert.True(t, n.Up())
	})
}

func TestFailoverWithCutReplicationLosesTheLockKey(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		cfg := withNetwork(baseConfig(b, 1, 1))
		cfg.Cluster.Replicas = 1
		w := world(t, cfg)
		ctx := context.Background()
		c := conn(t, w, 0, 0)
		require.NoError(t, c.Set(ctx, "before", "v", time.Minute).Err())
		if b == sim.BackendRedis {
			replica := redis.NewClient(&redis.Options{Addr: w.Cluster().Replica(0).Addr()})
			defer replica.Close()
			eventually(t, "replicated", func() error { return replica.Get(ctx, "before").Err() })
		}
		cut := faults.Partition{Links: faults.Links{Groups: [][]string{{"n0"}, {"r0"}}}}
		start(t, w, cut)
		require.NoError(t, c.Set(ctx, "lock", "holder", time.Minute).Err())

		f := faults.Failover{Node: 0}
		start(t, w, f)
		var got error
		eventually(t, "new master reachable", func() error {
			cctx, cancel := ctxFor(time.Second)
			defer cancel()
			got = c.Get(cctx, "lock").Err()
			if got == redis.Nil {
				return nil
			}
			return got
		})
		require.ErrorIs(t, got, redis.Nil, "the promoted replica never had the lock key")
		require.NoError(t, c.Get(ctx, "before").Err(), "what replicated before the cut survived")
		stop(t, w, cut)
		stop(t, w, f)
		if b == sim.BackendRedis {
			require.True(t, w.Cluster().Replica(0).Up(), "the old master rejoined")
			// Sentinel makes it a replica once it sees it back
			// (+convert-to-slave), at its next INFO. Sentinel may also
			// fail over once more (back to the rejoined server): the
			// harness follows +switch-master, so the cluster's view is
			// read anew on every try, and whichever server it calls
			// the replica must be one.
			eventually(t, "the cluster's replica a replica", func() error {
				cl := redis.NewClient(&redis.Options{Addr: w.Cluster().Replica(0).Addr()})
				defer cl.Close()
				info, err := cl.Info(ctx, "replication").Result()
				if err == nil && !strings.Contains(info, "role:slave") {
					err = fmt.Errorf("not a replica yet: %q", info)
				}
				return err
			})
		}
	})
}

func TestFailoverWithoutLagKeepsTheKey(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		cfg := withNetwork(baseConfig(b, 1, 1))
		cfg.Cluster.Replicas = 1
		w := world(t, cfg)
		ctx := context.Background()
		c := conn(t, w, 0, 0)
		require.NoError(t, c.Set(ctx, "lock", "holder", time.Minute).Err())
		if b == sim.BackendRedis {
			replica := redis.NewClient(&redis.Options{Addr: w.Cluster().Replica(0).Addr()})
			defer replica.Close()
			eventually(t, "replicated", func() error { return replica.Get(ctx, "lock").Err() })
		}
		f := faults.Failover{Node: 0}
		start(t, w, f)
		eventually(t, "the key on the new master", func() error {
			cctx, cancel := ctxFor(time.Second)
			defer cancel()
			return c.Get(cctx, "lock").Err()
		})
		stop(t, w, f)
	})
}

// waitAOFWritten waits until redis-server reports its AOF buffer written to
// the file and no fsync pending: everything it acknowledged so far is then
// in the AOF.
func waitAOFWritten(t *testing.T, cl *redis.Client) {
	t.Helper()
	eventually(t, "AOF buffer written", func() error {
		ctx, cancel := ctxFor(time.Second)
		defer cancel()
		info, err := cl.Info(ctx, "persistence").Result()
		if err != nil {
			return err
		}
		for _, want := range []string{"aof_enabled:1", "aof_buffer_length:0", "aof_pending_bio_fsync:0", "aof_last_write_status:ok"} {
			if !strings.Contains(info, want+"\r\n") {
				return fmt.Errorf("INFO persistence has no %q", want)
			}
		}
		return nil
	})
}
