package node

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/sim/network"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The in-memory network must mean what toxiproxy means (sim/network), so that a
// scenario gives the same verdict in virtual and in real time. In a bubble
// the times are exact.

// memCluster starts an in-memory cluster of one node with two proxied
// clients and returns it with client i's connection to node 0 and the
// harness's direct one.
func memCluster(t *testing.T) (*Cluster, [2]redis.UniversalClient, *redis.Client) {
	t.Helper()
	c, err := StartCluster(context.Background(), ClusterConfig{Nodes: 1, InMemory: true, ProxiedClients: 2})
	require.NoError(t, err)
	cs := [2]redis.UniversalClient{c.ClientConns(0)[0], c.ClientConns(1)[0]}
	direct := c.NewClient(0)
	t.Cleanup(func() {
		cs[0].Close()
		cs[1].Close()
		direct.Close()
		c.Close()
	})
	return c, cs, direct
}

// assertWire checks that a round trip took what the wire takes: its delay
// ± its jitter, each way.
func assertWire(t *testing.T, d time.Duration, msg string) {
	t.Helper()
	assert.GreaterOrEqual(t, d, 2*(network.WireDelay-network.WireJitter), msg)
	assert.LessOrEqual(t, d, 2*(network.WireDelay+network.WireJitter), msg)
}

// TestMemWireKeepsClientsOutOfLockstep: two clients that send at the same
// instant do not get their replies at the same instant.
func TestMemWireKeepsClientsOutOfLockstep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, cs, _ := memCluster(t)
		warm(t, cs[:]...)
		seen := map[bool]int{}
		for range 10 {
			var d [2]time.Duration
			done := make(chan struct{})
			for i := range cs {
				go func() {
					defer func() { done <- struct{}{} }()
					d[i], _ = roundTrip(t, cs[i])
				}()
			}
			<-done
			<-done
			seen[d[0] == d[1]]++
		}
		assert.Less(t, seen[true], 10, "every pair of round trips took the same time")
	})
}

// warm opens a connection on each client, so that a round trip measured
// later is one command, not a dial and a handshake as well.
func warm(t *testing.T, cs ...redis.UniversalClient) {
	t.Helper()
	for _, c := range cs {
		require.NoError(t, c.Ping(context.Background()).Err())
	}
}

func roundTrip(t *testing.T, c redis.UniversalClient) (time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Ping(ctx).Err()
	return time.Since(start), err
}

func TestMemDelayAddsLatencyEachWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cs, _ := memCluster(t)
		warm(t, cs[:]...)
		id, err := c.Network().Start([]network.Link{{From: network.ClientEnd(0), To: network.NodeEnd(0)}}, network.LinkFault{Latency: 30 * time.Millisecond})
		require.NoError(t, err)
		d, err := roundTrip(t, cs[0])
		require.NoError(t, err)
		assertWire(t, d-60*time.Millisecond, "30 ms each way, on top of the wire")
		d, err = roundTrip(t, cs[1])
		require.NoError(t, err)
		assertWire(t, d, "client 1's link is not delayed")
		require.NoError(t, c.Network().Stop(id))
		d, err = roundTrip(t, cs[0])
		require.NoError(t, err)
		assertWire(t, d, "healed")
	})
}

func TestMemJitterStaysInItsBand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cs, _ := memCluster(t)
		warm(t, cs[0])
		_, err := c.Network().Start([]network.Link{{From: network.ClientEnd(0), To: network.NodeEnd(0)}}, network.LinkFault{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond})
		require.NoError(t, err)
		seen := map[time.Duration]bool{}
		for range 20 {
			d, err := roundTrip(t, cs[0])
			require.NoError(t, err)
			assert.GreaterOrEqual(t, d, 40*time.Millisecond+2*(network.WireDelay-network.WireJitter))
			assert.LessOrEqual(t, d, 80*time.Millisecond+2*(network.WireDelay+network.WireJitter))
			seen[d] = true
		}
		assert.Greater(t, len(seen), 1, "jitter varies the delay")
	})
}

func TestMemCutDropsAndHealClosesConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cs, direct := memCluster(t)
		ctx := context.Background()
		require.NoError(t, cs[0].Ping(ctx).Err(), "a connection that will live through the cut")
		id, err := c.Network().Start([]network.Link{{From: network.ClientEnd(0), To: network.NodeEnd(0)}}, network.LinkFault{Cut: true})
		require.NoError(t, err)
		tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		err = cs[0].Set(tctx, "k", "cut", 0).Err()
		cancel()
		require.Error(t, err, "a request across a cut times out")
		assert.Equal(t, redis.Nil, direct.Get(ctx, "k").Err(), "the request vanished: it never ran")
		require.NoError(t, cs[1].Set(ctx, "k2", "v", 0).Err(), "client 1 is not cut")
		require.NoError(t, c.Network().Stop(id))
		require.NoError(t, cs[0].Set(ctx, "k", "healed", 0).Err(), "new connections work at once")
		assert.Equal(t, "healed", direct.Get(ctx, "k").Val())
	})
}

func TestMemResetRunsTheCommandAndLosesTheReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cs, direct := memCluster(t)
		ctx := context.Background()
		warm(t, cs[0])
		id, err := c.Network().Start([]network.Link{{From: network.ClientEnd(0), To: network.NodeEnd(0)}}, network.LinkFault{Reset: true})
		require.NoError(t, err)
		require.Error(t, cs[0].Set(ctx, "k", "v", 0).Err(), "the reply is lost")
		assert.Equal(t, "v", direct.Get(ctx, "k").Val(), "the command ran")
		require.Error(t, cs[0].Ping(ctx).Err(), "a new connection's handshake is lost the same way")
		require.NoError(t, c.Network().Stop(id))
		require.NoError(t, cs[0].Ping(ctx).Err())
	})
}

func TestMemKillRefusesAndRestartServes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cs, direct := memCluster(t)
		ctx := context.Background()
		require.NoError(t, direct.Set(ctx, "k", "v", 0).Err())
		n := c.Node(0).(ProcessController)
		require.NoError(t, n.Kill())
		require.Error(t, cs[0].Ping(ctx).Err(), "a killed node answers nothing")
		require.NoError(t, n.Restart(true))
		v, err := direct.Get(ctx, "k").Result()
		require.NoError(t, err)
		assert.Equal(t, "v", v, "keep_data kept the key")
		require.NoError(t, n.Kill())
		require.NoError(t, n.Restart(false))
		assert.Equal(t, redis.Nil, direct.Get(ctx, "k").Err(), "a restart without data is empty")
		require.NoError(t, cs[0].Ping(ctx).Err())
	})
}

func TestMemKeyExpiresOnTheNodeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, _, direct := memCluster(t)
		ctx := context.Background()
		require.NoError(t, direct.Set(ctx, "k", "v", 500*time.Millisecond).Err())
		time.Sleep(499 * time.Millisecond)
		assert.Equal(t, "v", direct.Get(ctx, "k").Val())
		time.Sleep(time.Millisecond)
		assert.Equal(t, redis.Nil, direct.Get(ctx, "k").Err(), "expired exactly at its TTL")
	})
}
