package faults_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// healGuard bounds a heal that must return: a hang guard, no measure of
// speed (toxiproxy's own RemoveToxic, stuck in the deadlock these tests
// provoke, never returns at all).
const healGuard = simtest.HangGuard

// A delay healed just after the node at its far end was killed heals, on
// the in-process toxiproxy and on a remote one. On toxiproxy v2.12.0,
// removing a latency toxic while a connection of its proxy dies can
// deadlock: RemoveToxic holds the proxy's toxic lock while it waits for the
// latency toxic to hand its data on, and the link's writer, which alone
// takes that data, has given up on its dead destination and waits for the
// same lock to unregister itself (Shopify/toxiproxy#558; sim/network/settle.go).
// Here a connection pipelines PINGs to node 0 through a 2 s delay, so both
// directions hold data when node 0 is killed; the connection's client end
// closes and the delay heals while that data is still held. Without the
// fix the heal never returned (local) or failed after the remote server's
// own 25 s (remote), every time.
func TestDelayOnClientLinkHealsAfterKillNode(t *testing.T) {
	simtest.RequireRedisServer(t)
	for _, remote := range []bool{false, true} {
		t.Run(map[bool]string{false: "local", true: "remote"}[remote], func(t *testing.T) {
			cfg := withNetwork(baseConfig(sim.BackendRedis, 1, 1))
			if remote {
				cfg.Cluster.Toxiproxy, _ = toxiproxyServer(t)
			}
			w := world(t, cfg)
			addr := conn(t, w, 0, 0).(*redis.Client).Options().Addr
			d := faults.Delay{Links: faults.Links{Clients: []int{0}, Nodes: []int{0}}, Latency: 2 * time.Second}
			start(t, w, d)
			stopPings := keepPinging(t, addr)
			time.Sleep(2500 * time.Millisecond) // data held both ways
			start(t, w, faults.KillNode{Node: 0, RestartAfter: faults.StayDown})
			time.Sleep(500 * time.Millisecond) // the node's end closes; replies still held
			stopPings()
			healWithin(t, w, d)
			// The link works again once the node is back.
			stop(t, w, faults.KillNode{Node: 0, RestartAfter: faults.StayDown})
			eventually(t, "c0 reaches the restarted n0", func() error {
				_, err := ping(conn(t, w, 0, 0), time.Second)
				return err
			})
		})
	}
}

// healWithin stops d, failing the test as hung when the heal does not
// return within healGuard.
func healWithin(t *testing.T, w *sim.World, d faults.Delay) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- d.Stop(w) }()
	select {
	case err := <-done:
		require.NoError(t, err, "heal %s", d)
	case <-time.After(healGuard):
		t.Fatalf("hung: healing %s did not return in %v (toxiproxy deadlocked in RemoveToxic)", d, healGuard)
	}
}

// keepPinging writes PINGs on one raw connection to addr every few
// milliseconds, never reading the replies, until the returned function is
// called; it closes the connection and returns once the writer has stopped.
func keepPinging(t *testing.T, addr string) (stop func()) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err := nc.Write([]byte("PING\r\n")); err != nil {
				return
			}
		}
	}()
	return func() { close(done); wg.Wait(); _ = nc.Close() }
}
