package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// samples holds one fault of every kind, as a scenario would write it.
var samples = []struct {
	kind  vocab.Kind
	fault sim.Fault
}{
	{vocab.KindPauseClient, faults.PauseClient{Client: 0}},
	{vocab.KindCrashClient, faults.CrashClient{Client: 0}},
	{vocab.KindClockSkewClient, faults.ClockSkewClient{Client: 0, Offset: time.Second}},
	{vocab.KindClockJumpClient, faults.ClockJumpClient{Client: 0, By: time.Second}},
	{vocab.KindClockJumpNode, faults.ClockJumpNode{Node: 0, By: time.Second}},
	{vocab.KindClockRateNode, faults.ClockRateNode{Node: 0, Rate: 2}},
	{vocab.KindDelay, faults.Delay{Links: faults.Links{Clients: []int{0}}, Latency: 10 * time.Millisecond}},
	{vocab.KindPartition, faults.Partition{Links: faults.Links{Groups: [][]string{{"c0"}, {"nodes"}}}}},
	{vocab.KindDrop, faults.Drop{Links: faults.Links{Clients: []int{0}}}},
	{vocab.KindPauseNode, faults.PauseNode{Node: 0, For: 100 * time.Millisecond}},
	{vocab.KindKillNode, faults.KillNode{Node: 0, RestartAfter: faults.StayDown}},
	{vocab.KindFailover, faults.Failover{Node: 0}},
	{vocab.KindRandom, faults.Random{}},
}

// TestSupportTable is the fault kind x backend table: every kind validates
// on miniredis and redis (with replicas: 1, which failover needs), and the
// external backend refuses what needs process control with one line naming
// the fault and the backend.
func TestSupportTable(t *testing.T) {
	refusedOnExternal := map[vocab.Kind]bool{
		vocab.KindClockJumpNode: true, vocab.KindClockRateNode: true,
		vocab.KindKillNode: true, vocab.KindFailover: true,
	}
	backends := []sim.ClusterConfig{
		{Backend: sim.BackendMiniredis, Nodes: 1, Replicas: 1},
		{Backend: sim.BackendRedis, Nodes: 1, Replicas: 1},
		{Backend: sim.BackendExternal, Addrs: []string{"redis.example:6379"}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-18s %-10s %-10s %s\n", "kind", "miniredis", "redis", "external")
	for _, s := range samples {
		fmt.Fprintf(&table, "%-18s", s.kind)
		for _, cc := range backends {
			cfg := baseConfig(cc.Backend, 2, 1)
			cfg.Cluster = cc
			cfg.Faults = []sim.Planned{{Fault: s.fault, For: 100 * time.Millisecond}}
			_, err := cfg.Resolve()
			verdict := "ok"
			if err != nil {
				verdict = "refused"
			}
			fmt.Fprintf(&table, " %-10s", verdict)
			if cc.Backend != sim.BackendExternal || !refusedOnExternal[s.kind] {
				assert.NoError(t, err, "%s on %s", s.kind, cc.Backend)
				continue
			}
			require.Error(t, err, "%s on external", s.kind)
			msg := err.Error()
			assert.NotContains(t, msg, "\n")
			assert.Contains(t, msg, s.kind)
			assert.Contains(t, msg, "external backend")
		}
		table.WriteString("\n")
	}
	t.Log("\n" + table.String())
}

func TestExternalBackend(t *testing.T) {
	simtest.RequireRedisServer(t)
	servers, _ := simtest.Cluster(t, sim.BackendRedis, 1) // someone else's server
	cfg := withNetwork(baseConfig(sim.BackendExternal, 1, 0))
	cfg.Cluster.Addrs = []string{servers.Node(0).Addr()}

	for _, bad := range []sim.Fault{
		faults.PauseNode{Node: 0},
		faults.Random{Kinds: []vocab.Kind{vocab.KindKillNode}},
	} {
		c := cfg
		c.Faults = []sim.Planned{{Fault: bad}}
		_, err := c.Resolve()
		require.Error(t, err, "%s", bad)
		t.Log(err)
	}
	c := cfg
	c.Faults = []sim.Planned{{Fault: faults.PauseNode{Node: 0, For: time.Second}, Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterEnter}}}
	_, err := c.Resolve()
	require.ErrorContains(t, err, "until", "CLIENT PAUSE cannot end at a point")

	w := world(t, cfg)
	n, err := w.Node(0)
	require.NoError(t, err)
	_, err = node.Capable[node.ProcessController](n, "be killed")
	require.ErrorContains(t, err, "node 0 (external) cannot be killed")
	_, isPauser := n.(node.Pauser)
	require.False(t, isPauser, "CLIENT PAUSE cannot be lifted early: only a timed pause")
	require.Error(t, n.FlushAll(), "not ours to wipe")

	c0 := conn(t, w, 0, 0)
	_, err = ping(c0, simtest.HangGuard)
	require.NoError(t, err)
	d := faults.Delay{Links: faults.Links{}, Latency: 30 * time.Millisecond}
	start(t, w, d)
	took, err := ping(c0, simtest.HangGuard)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, took, 60*time.Millisecond, "network faults work on external servers")
	stop(t, w, d)

	p := faults.PauseNode{Node: 0, For: 150 * time.Millisecond}
	start(t, w, p)
	took, err = ping(c0, simtest.HangGuard)
	require.NoError(t, err, "CLIENT PAUSE holds the command, then runs it")
	assert.GreaterOrEqual(t, took, 100*time.Millisecond, "the server held the command")
	stop(t, w, p)
}
