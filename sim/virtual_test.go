package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// runVirtual plays cfg in virtual time and checks it.
func runVirtual(t *testing.T, cfg sim.Config) (*sim.Result, checker.Result) {
	t.Helper()
	cfg.VirtualTime = true
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	spec, err := cfg.Resolve()
	require.NoError(t, err)
	res, err := sim.Run(ctx, spec)
	require.NoError(t, err)
	for _, n := range res.Notes {
		t.Log("note:", n)
	}
	return res, checker.Check(res.History, checker.Config{Fencing: res.Config.Fencing()})
}

func TestVirtualTimeGCPause(t *testing.T) {
	res, r := runVirtual(t, gcPause(sim.BackendMiniredis, vocab.PointAfterCheck))
	v := verdicts(r)
	assert.Equal(t, vocab.Unsafe, v["overall"], "%+v", r)
	t.Logf("wall %v, %d ops, verdicts %v", res.Wall, len(res.History.Ops), v)
}

func TestVirtualTimeNetworkFaults(t *testing.T) {
	cfg := sim.Config{
		Algorithm: "setpx",
		Cluster:   sim.ClusterConfig{Nodes: 1},
		Clients:   2,
		Duration:  3 * time.Second,
		Seed:      1,
		Faults: []sim.Planned{{
			Fault: faults.Delay{Links: faults.Links{Clients: []int{0}}, Latency: 30 * time.Millisecond},
			Start: sim.Trigger{At: 200 * time.Millisecond},
			For:   time.Second,
		}},
	}
	res, r := runVirtual(t, cfg)
	t.Logf("wall %v, %d ops, verdict %v", res.Wall, len(res.History.Ops), r.Verdict)
}

// A node killed while paused drops the commands its pause held. They are
// let go at once, not through the scheduler: the kill holds the node's
// lock until miniredis has closed every connection, and a goroutine
// waiting for that lock (the observer reading the node) is not durably
// blocked, so the scheduler would never get to pick them and the run
// would never end.
func TestKillWhilePausedEnds(t *testing.T) {
	cfg := sim.Config{
		Algorithm: "setpx",
		Cluster:   sim.ClusterConfig{Nodes: 1},
		Clients:   3,
		Duration:  2 * time.Second,
		Seed:      1,
		Faults: []sim.Planned{
			{Fault: faults.PauseNode{Node: 0}, Start: sim.Trigger{At: 200 * time.Millisecond}, For: time.Second},
			{Fault: faults.KillNode{Node: 0, RestartAfter: 200 * time.Millisecond}, Start: sim.Trigger{At: 500 * time.Millisecond}},
		},
	}
	for seed := uint64(1); seed <= 5; seed++ {
		cfg.Seed = seed
		done := make(chan struct{})
		go func() {
			defer close(done)
			runVirtual(t, cfg)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("seed %d: the run did not end within 30 s of wall time", seed)
		}
	}
}
