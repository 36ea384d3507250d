package faults_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// TestDelayShowsInLatency: a delayed link's round trip takes at least twice
// the latency (a lower bound, whatever the machine's load). That the other
// links are not delayed and that the heal ends the delay are shown with a
// delay of an hour, which no ping in this test could sit out: client 1's
// ping comes back while client 0's (sent first) is still held, and the heal
// releases client 0's.
func TestDelayShowsInLatency(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, withNetwork(baseConfig(b, 2, 1)))
		c0, c1 := conn(t, w, 0, 0), conn(t, w, 1, 0)
		for _, c := range []redis.UniversalClient{c0, c1} {
			_, err := ping(c, simtest.HangGuard) // connect before measuring
			require.NoError(t, err)
		}
		f := faults.Delay{Links: faults.Links{Clients: []int{0}}, Latency: 50 * time.Millisecond}
		start(t, w, f)
		took, err := ping(c0, simtest.HangGuard)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, took, 100*time.Millisecond, "50ms each way: the round trip takes 100ms more")
		stop(t, w, f)

		long := faults.Delay{Links: faults.Links{Clients: []int{0}}, Latency: time.Hour}
		start(t, w, long)
		held := make(chan error, 1)
		go func() {
			_, err := ping(c0, simtest.HangGuard)
			held <- err
		}()
		_, err = ping(c1, simtest.HangGuard)
		require.NoError(t, err, "client 1's link is not delayed (an hour's delay would have outlasted the hang guard)")
		select {
		case err := <-held:
			t.Fatalf("client 0's ping came back through an hour's delay: %v", err)
		default:
		}
		stop(t, w, long)
		require.NoError(t, <-held, "the heal releases what the delay held")
		_, err = ping(c0, simtest.HangGuard)
		require.NoError(t, err, "healed (an hour's delay would have outlasted the hang guard)")
	})
}

func TestPartitionMakesNodeUnreachableUntilHealed(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, withNetwork(baseConfig(b, 2, 2)))
		for c := 0; c < 2; c++ {
			for n := 0; n < 2; n++ {
				_, err := ping(conn(t, w, c, n), simtest.HangGuard)
				require.NoError(t, err)
			}
		}
		f := faults.Partition{Links: faults.Links{Groups: [][]string{{"c0"}, {"n0"}}}}
		start(t, w, f)
		took, err := ping(conn(t, w, 0, 0), 100*time.Millisecond)
		require.Error(t, err, "c0 reached n0 through the partition")
		assert.True(t, isTimeout(err), "a partition loses packets; it does not refuse: %v", err)
		assert.GreaterOrEqual(t, took, 90*time.Millisecond)
		// A new connection does not get through either.
		fresh := redis.NewClient(&redis.Options{Addr: conn(t, w, 0, 0).(*redis.Client).Options().Addr, ContextTimeoutEnabled: true, MaxRetries: -1})
		defer fresh.Close()
		_, err = ping(fresh, 100*time.Millisecond)
		require.Error(t, err)
		for _, cn := range [][2]int{{0, 1}, {1, 0}, {1, 1}} {
			_, err := ping(conn(t, w, cn[0], cn[1]), simtest.HangGuard)
			require.NoError(t, err, "c%d<->n%d is outside the partition", cn[0], cn[1])
		}
		stop(t, w, f)
		_, err = ping(conn(t, w, 0, 0), simtest.HangGuard)
		require.NoError(t, err, "healed")
		_, err = ping(fresh, simtest.HangGuard)
		require.NoError(t, err, "healed, for a new connection too")
	})
}

func TestDropLosesRepliesNotCommands(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		w := world(t, withNetwork(baseConfig(b, 1, 2)))
		c := conn(t, w, 0, 0)
		_, err := ping(c, simtest.HangGuard)
		require.NoError(t, err)
		f := faults.Drop{Links: faults.Links{Nodes: []int{0}}}
		start(t, w, f)
		ctx, cancel := ctxFor(time.Second)
		defer cancel()
		err = c.Set(ctx, "k", "v", 0).Err()
		require.Error(t, err, "the reply came back through a drop")
		assert.False(t, isTimeout(err), "a drop resets; it does not time out: %v", err)
		v, err := direct(t, w, 0).Get(ctx, "k").Result()
		require.NoError(t, err)
		assert.Equal(t, "v", v, "the command ran; only its reply was lost")
		_, err = ping(conn(t, w, 0, 1), simtest.HangGuard)
		require.NoError(t, err, "node 1 is not dropped")
		stop(t, w, f)
		eventually(t, "healed", func() error {
			_, err := ping(c, time.Second)
			return err
		})
	})
}

// Kleppmann's Redlock setup: overlapping groups leave node 2 reachable from
// both clients.
func TestLinksGroupsOverlap(t *testing.T) {
	cfg := resolved(t, baseConfig(sim.BackendMiniredis, 2, 5))
	l := faults.Links{Groups: [][]string{{"c0", "n0", "n1", "n2"}, {"c1", "n2", "n3", "n4"}}}
	links, err := l.Select(cfg)
	require.NoError(t, err)
	var got []string
	for _, k := range links {
		got = append(got, k.String())
	}
	assert.ElementsMatch(t, []string{"c0<->n3", "c0<->n4", "c1<->n0", "c1<->n1"}, got)

	links, err = faults.Links{Groups: [][]string{{"c0"}, {"nodes"}}}.Select(cfg)
	require.NoError(t, err)
	assert.Len(t, links, 5, "c0 cut from every node, not from the resource")

	links, err = faults.Links{Clients: []int{1}}.Select(cfg)
	require.NoError(t, err)
	assert.Len(t, links, 6, "client 1 to 5 nodes and the resource")

	for name, bad := range map[string]faults.Links{
		"range":     {Groups: [][]string{{"c2"}, {"n0"}}},
		"spelling":  {Groups: [][]string{{"x0"}, {"n0"}}},
		"nothing":   {Groups: [][]string{{"c0", "n0"}}},
		"replicas":  {Groups: [][]string{{"r0"}, {"n0"}}},
		"both ways": {Clients: []int{0}, Groups: [][]string{{"c0"}, {"n0"}}},
		"node":      {Nodes: []int{5}},
	} {
		_, err := bad.Select(cfg)
		assert.Error(t, err, name)
	}
}

func TestNetworkFaultsPutClientsBehindProxies(t *testing.T) {
	cfg := baseConfig(sim.BackendMiniredis, 2, 1)
	assert.Zero(t, resolved(t, cfg).Cluster.ProxiedClients, "no fault, no proxies")
	cfg.Faults = []sim.Planned{{Fault: faults.Delay{Links: faults.Links{Groups: [][]string{{"c0"}, {"resource"}}}, Latency: time.Second}}}
	assert.Zero(t, resolved(t, cfg).Cluster.ProxiedClients, "the resource link is carried in memory")
	cfg.Faults = append(cfg.Faults, sim.Planned{Fault: faults.Partition{Links: faults.Links{Nodes: []int{0}}}})
	assert.Equal(t, 2, resolved(t, cfg).Cluster.ProxiedClients)
}

// The same faults through a toxiproxy server driven over its HTTP API, as
// --toxiproxy does for a remote one.
func TestRemoteToxiproxy(t *testing.T) {
	addr, proxies := toxiproxyServer(t)
	cfg := withNetwork(baseConfig(sim.BackendMiniredis, 1, 1))
	cfg.Cluster.Toxiproxy = addr
	func() {
		w := world(t, cfg)
		require.NotEmpty(t, proxies(), "the client's proxy lives on the server")
		c := conn(t, w, 0, 0)
		_, err := ping(c, simtest.HangGuard)
		require.NoError(t, err)
		d := faults.Delay{Links: faults.Links{}, Latency: 30 * time.Millisecond}
		start(t, w, d)
		took, err := ping(c, simtest.HangGuard)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, took, 60*time.Millisecond)
		stop(t, w, d)
		p := faults.Partition{Links: faults.Links{Clients: []int{0}}}
		start(t, w, p)
		_, err = ping(c, 100*time.Millisecond)
		require.Error(t, err)
		stop(t, w, p)
		_, err = ping(c, simtest.HangGuard)
		require.NoError(t, err)
		w.Close()
		require.NoError(t, w.Cluster().Close())
	}()
	assert.Empty(t, proxies(), "closing the cluster removes its proxies from the server")
}

func TestBadToxiproxyAddressFailsAtStart(t *testing.T) {
	cfg := resolved(t, withNetwork(baseConfig(sim.BackendMiniredis, 1, 1)))
	cfg.Cluster.Toxiproxy = "127.0.0.1:1"
	_, err := node.StartCluster(context.Background(), cfg.Cluster)
	require.ErrorContains(t, err, "toxiproxy at 127.0.0.1:1")
}
