package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// TestSentinelFailover: killing the master lets the three sentinels fail
// over by themselves; the harness follows their +switch-master, a client
// through its proxies reaches the promoted replica, the old master rejoins
// as a replica, and Close leaves no sentinel behind.
func TestSentinelFailover(t *testing.T) {
	simtest.RequireRedisServer(t)
	parent := t.TempDir()
	c := startCluster(t, node.ClusterConfig{Backend: node.BackendRedis, Nodes: 1, Replicas: 1, ProxiedClients: 1, Dir: parent})
	require.Equal(t, node.FailoverSentinel, c.Config().Failover.Mode)
	require.Len(t, c.SentinelAddrs(), node.Sentinels)
	master, replica := c.Node(0).Addr(), c.Replica(0).Addr()

	ctx, cancel := context.WithTimeout(context.Background(), simtest.HangGuard)
	defer cancel()
	conns := c.ClientConns(0)
	defer conns[0].Close()
	require.NoError(t, conns[0].Set(ctx, "k", "v", 0).Err())

	desc, err := c.Failover(0)
	require.NoError(t, err)
	require.Contains(t, desc, "Sentinel")
	// Sentinel needs down_after, an election and a promotion: wait for it
	// by what it announces, not by a clock.
	for c.Node(0).Addr() != replica {
		select {
		case <-ctx.Done():
			t.Fatalf("no +switch-master; sentinels said %v", c.SentinelEvents())
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.Equal(t, master, c.Replica(0).Addr())
	for _, ev := range c.SentinelEvents() {
		t.Logf("%s s%d %s %s", ev.At.Format("15:04:05.000"), ev.Sentinel, ev.Event, ev.Detail)
	}
	var events []string
	for _, ev := range c.SentinelEvents() {
		events = append(events, ev.Event)
	}
	for _, want := range []string{"+sdown", "+odown", "+try-failover", "+elected-leader", "+switch-master"} {
		require.Contains(t, events, want)
	}
	// The client follows through the sentinels; the replicated key is
	// there. The first tries may still reach the dead master.
	var got string
	for got != "v" {
		got, _ = conns[0].Get(ctx, "k").Result()
		select {
		case <-ctx.Done():
			t.Fatalf("client never reached the promoted replica: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.NoError(t, c.Rejoin(0))
	require.True(t, c.Replica(0).Up())

	require.NoError(t, c.Close())
	require.Empty(t, processesIn(t, parent), "a server or sentinel left running")
}
