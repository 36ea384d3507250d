package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/recorder"
)

func probeWorld(t *testing.T) *World {
	t.Helper()
	cfg := Config{Algorithm: "setpx", Options: lock.Options{TTL: 300 * time.Millisecond, NodeTimeout: 30 * time.Millisecond}}.withDefaults()
	cl, err := node.StartCluster(context.Background(), cfg.Cluster)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	return &World{cfg: cfg, rec: recorder.New(), cluster: cl}
}

// A probe whose first commands time out (a node still waking up) retries
// until its bound instead of calling the lock deadlocked.
func TestProbeRetriesUnknownOutcomes(t *testing.T) {
	w := probeWorld(t)
	node := w.cluster.Nodes()[0].(node.Pauser)
	require.NoError(t, node.Pause())
	resumed := make(chan struct{})
	go func() {
		defer close(resumed)
		time.Sleep(200 * time.Millisecond)
		_ = node.Resume()
	}()
	probe(context.Background(), w)
	<-resumed
	ops := w.rec.History().Ops
	require.Len(t, ops, 1)
	assert.Equal(t, OK, ops[0].Outcome, ops[0].Err)
}

// A probe that never gets a definite answer says unknown, not deadlock.
func TestProbeWithoutAnswerIsUnknown(t *testing.T) {
	w := probeWorld(t)
	node := w.cluster.Nodes()[0].(node.Pauser)
	require.NoError(t, node.Pause())
	t.Cleanup(func() { _ = node.Resume() })
	probe(context.Background(), w)
	ops := w.rec.History().Ops
	require.Len(t, ops, 1)
	assert.Equal(t, Unknown, ops[0].Outcome, ops[0].Err)
	assert.Contains(t, ops[0].Err, "no definite answer")
}

// A lock that stays taken is a deadlock.
func TestProbeRefusedUntilBoundIsDeadlock(t *testing.T) {
	w := probeWorld(t)
	c := w.cluster.NewClient(0)
	defer c.Close()
	require.NoError(t, c.Set(context.Background(), "locksim:0", "held-forever", 0).Err())
	probe(context.Background(), w)
	ops := w.rec.History().Ops
	require.Len(t, ops, 1)
	assert.Equal(t, Fail, ops[0].Outcome)
}
