package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// The harness's reads of the lock keys: every node read from true time 0
// (on redis-server concurrently with the first acquires),
// a record only when the key changed, the values the clients' tokens,
// read off the node while the lease was held, on both backends.
func TestNodeRecords(t *testing.T) {
	cfg := sim.Config{Algorithm: "redlock", Cluster: sim.ClusterConfig{Nodes: 3}, Clients: 2, Duration: 600 * time.Millisecond,
		Hold: 30 * time.Millisecond, Seed: 3}
	t.Run("virtual", func(t *testing.T) {
		res, _ := runVirtual(t, cfg)
		checkNodeRecords(t, res.History, 3, 0)
	})
	t.Run("redis-server", func(t *testing.T) {
		simtest.RequireRedisServer(t)
		c := cfg
		c.Cluster.Backend = sim.BackendRedis
		spec, err := c.Resolve()
		require.NoError(t, err)
		res, err := sim.Run(context.Background(), spec)
		require.NoError(t, err)
		checkNodeRecords(t, res.History, 3, 100*time.Millisecond) // a loaded machine may start the reads late
	})
}

// checkNodeRecords: the first read of each node at most late after true
// time 0.
func checkNodeRecords(t *testing.T, h history.History, nodes int, late time.Duration) {
	t.Helper()
	var probeFrom time.Duration = -1
	for _, op := range h.Ops {
		if op.Kind == history.KindProbe {
			probeFrom = op.Call
		}
	}
	first := map[int]bool{}
	seenToken := map[int]int{}
	last := map[int]history.Op{}
	for _, op := range h.Ops {
		if op.Kind != history.KindNode {
			continue
		}
		assert.Equal(t, "locksim:0", op.Key)
		if !first[op.Node] {
			first[op.Node] = true
			assert.LessOrEqual(t, op.Call, late, "node %d: read from the start", op.Node)
		} else {
			prev := last[op.Node]
			assert.False(t, prev.Outcome == op.Outcome && prev.Value == op.Value && prev.NoTTL == op.NoTTL,
				"node %d: a record only when the key changed (%+v after %+v)", op.Node, op, prev)
		}
		last[op.Node] = op
		if op.Outcome == history.OK && (probeFrom < 0 || op.Return < probeFrom) { // the probe's own token is its design's
			// a failed attempt's token is recorded nowhere else
			assert.Regexp(t, `^c[01]-\d+$`, op.Value, "node %d holds %q, not a client's token", op.Node, op.Value)
			assert.False(t, op.NoTTL, "redlock sets its TTL with the key")
			assert.Positive(t, op.TTL)
			seenToken[op.Node]++
		}
	}
	for n := range nodes {
		assert.True(t, first[n], "node %d never read", n)
		assert.Positive(t, seenToken[n], "node %d: no token read off it", n)
	}
}
