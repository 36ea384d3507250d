package node_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/node/rediscluster"
	"github.com/locksim/locksim/sim/simtest"
)

// TestRedisClusterBackend starts the redis-cluster backend on both
// servers: every process is a node, a simulated client's one
// ClusterClient reaches every master's slots, and Close (the
// path a signal takes through CloseAll) leaves no process, listener or
// directory behind.
func TestRedisClusterBackend(t *testing.T) {
	for _, server := range []node.Server{node.ServerRedis, node.ServerValkey} {
		t.Run(string(server), func(t *testing.T) {
			if server == node.ServerValkey {
				simtest.RequireValkey(t)
			} else {
				simtest.RequireRedisServer(t)
			}
			c := startCluster(t, node.ClusterConfig{Backend: node.BackendRedisCluster, Nodes: 3, Replicas: 1, Server: server, ProxiedClients: 1})
			require.Len(t, c.Nodes(), 6, "3 masters and their replicas")
			pids := c.RedisCluster().Pids()
			require.Len(t, pids, 6)
			conns := c.ClientConns(0)
			require.Len(t, conns, 1, "one cluster client")
			cc, ok := conns[0].(*node.ClusterConn)
			require.True(t, ok)
			ctx, cancel := withTimeout(simtest.HangGuard)
			defer cancel()
			// keys on every master's slots
			for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
				require.NoError(t, cc.Set(ctx, k, "v", 0).Err(), k)
			}
			owner, err := c.RedisCluster().OwnerOf(ctx, rediscluster.SlotOf("a"))
			require.NoError(t, err)
			require.GreaterOrEqual(t, c.NodeIndex(owner), 0)
			require.NoError(t, cc.Close())
			_, addrs := snapshot(c)
			dir := c.Dir()
			require.NoError(t, node.CloseAll())
			requireGone(t, pids, addrs, dir)
		})
	}
}

// TestRedisClusterCrossSlot: a script over two keys of different slots is
// refused with the server's own CROSSSLOT error, and one over keys that
// share a hash tag runs.
func TestRedisClusterCrossSlot(t *testing.T) {
	simtest.RequireRedisServer(t)
	c := startCluster(t, node.ClusterConfig{Backend: node.BackendRedisCluster, Nodes: 3})
	cc := c.NewClients()[0]
	defer cc.Close()
	ctx, cancel := withTimeout(simtest.HangGuard)
	defer cancel()
	script := redis.NewScript(`return redis.call("SET", KEYS[1], "x") and redis.call("SET", KEYS[2], "y")`)
	err := script.Run(ctx, cc, []string{"lock:read", "lock:write"}).Err()
	require.ErrorContains(t, err, "CROSSSLOT")
	require.NoError(t, script.Run(ctx, cc, []string{"{lock}:read", "{lock}:write"}).Err())
}
