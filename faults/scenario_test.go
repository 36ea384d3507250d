package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// End-to-end runs of catalogue scenarios that only these faults make
// possible, on both backends.

// Scenario 11: the lock key never reaches the replica; the master dies
// while client 0 holds the lock; client 1 takes it on the promoted replica.
func TestFailoverAsyncReplicationIsUnsafe(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := run(t, sim.Config{
			Algorithm: "setpx",
			Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
			// The harness's own instant promotion: a second-long run has
			// no room for Sentinel's (the catalogue's
			// failover-async-replication plays that on redis-server).
			Cluster:  failoverCluster(b),
			Clients:  2,
			Duration: time.Second,
			Hold:     200 * time.Millisecond,
			Seed:     1,
			Faults: []sim.Planned{
				// at client 0's first step, not at 0: a timer at 0 may fire
				// after the first SET NX has already replicated
				{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"n0"}, {"r0"}}}}, Start: sim.Trigger{Client: 0, Point: vocab.PointBeforeAcquire, Nth: 1}},
				{Fault: faults.Failover{Node: 0}, Start: sim.Trigger{Client: 0, Point: vocab.PointAfterEnter, Nth: 1}},
				clientZeroFirst,
			},
		})
		assertFired(t, res, 1, 2)
		assert.Equal(t, vocab.Unsafe, r.Verdict, "%+v", r)
		assert.Equal(t, vocab.Unsafe, r.Check("claim").Verdict, "the lock broke its own promise")
	})
}

// Scenario 12 (Kleppmann): client 0 reaches nodes 0-2, client 1 nodes 2-4;
// node 2 crashes once client 0 holds the lock and is back, empty, when
// client 0 enters; client 1 builds a majority with it.
//
// Every step is tied to a point, not to a time: node 2 is down from client
// 0's after-acquire until its after-enter, whose heal restarts it and
// returns only once it answers; only then is client 1 let go (stops at a
// point run in fault order). A client 1 round that straddled the restart
// could leave its own key on node 2 (a SET that landed after its unlock
// round), which would refuse client 1 for a whole TTL. The node timeout is
// generous, as this test is not about timeouts: at 20 ms a loaded machine
// turns replies into timeouts, and a timed-out SET that lands leaves the
// same kind of key behind.
func TestRedlockRestartWithoutFsyncIsUnsafe(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		ttl := 3 * time.Second
		res, r := run(t, sim.Config{
			Algorithm: "redlock",
			Options:   lock.Options{TTL: ttl, ValidityCheck: true, NodeTimeout: 200 * time.Millisecond, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
			Cluster:   sim.ClusterConfig{Backend: b, Nodes: 5},
			Clients:   2,
			Duration:  ttl,
			Hold:      ttl - 200*time.Millisecond,
			Seed:      1,
			Faults: []sim.Planned{
				{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"c0", "n0", "n1", "n2"}, {"c1", "n2", "n3", "n4"}}}}, Start: sim.Trigger{Client: 0, Point: vocab.PointBeforeAcquire, Nth: 1}},
				{
					Fault: faults.KillNode{Node: 2, RestartAfter: faults.StayDown},
					Start: sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1},
					Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterEnter, Nth: 1},
				},
				{
					Fault: faults.PauseClient{Client: 1},
					Start: sim.Trigger{Client: 1, Point: vocab.PointBeforeAcquire, Nth: 1},
					Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterEnter, Nth: 1},
				},
			},
		})
		assertFired(t, res, 1, 2)
		// the dangerous moment: client 1 acquired while client 0 was inside
		var in0, out0 time.Duration
		for _, op := range opsOf(res.History, 0, history.KindEnter) {
			in0 = op.Call
			break
		}
		for _, op := range opsOf(res.History, 0, history.KindExit) {
			out0 = op.Call
			break
		}
		require.Positive(t, in0, "client 0 never entered")
		got := false
		for _, op := range opsOf(res.History, 1, history.KindAcquire) {
			if op.Outcome == history.OK && op.Return > in0 && (out0 == 0 || op.Return < out0) {
				got = true
			}
		}
		require.True(t, got, "client 1 never acquired while client 0 was inside: the scenario did not play")
		assert.Equal(t, vocab.Unsafe, r.Verdict, "%+v", r)
		assert.Equal(t, vocab.Unsafe, r.Check("claim").Verdict)
	})
}

// clientZeroFirst holds client 1 back until client 0 holds the lock, so the
// faults that wait for client 0 inside do not depend on who wins the first
// SET NX (client 1 could otherwise win every round at a 10 ms poll). When
// client 0 acquires before client 1 even starts, the pause is cancelled.
var clientZeroFirst = sim.Planned{
	Fault: faults.PauseClient{Client: 1},
	Start: sim.Trigger{Client: 1, Point: vocab.PointBeforeAcquire, Nth: 1},
	Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1},
	For:   300 * time.Millisecond,
}

// assertFired checks that each of the given faults (1-based, as in the
// history) started and stopped without error.
func assertFired(t *testing.T, res *sim.Result, ids ...int) {
	t.Helper()
	for _, id := range ids {
		got := 0
		for _, op := range res.History.Ops {
			if op.Kind == history.KindFault && op.FaultID == id {
				assert.Equal(t, history.OK, op.Outcome, "%s: %s", op.Fault, op.Err)
				got++
			}
		}
		assert.Equal(t, 1, got, "fault %d fired and healed: %v", id, res.Notes)
	}
}

// failoverCluster is one master and its replica, failed over at once
// (direct) on redis-server.
func failoverCluster(b sim.Backend) sim.ClusterConfig {
	cfg := sim.ClusterConfig{Backend: b, Nodes: 1, Replicas: 1}
	if b == sim.BackendRedis {
		cfg.Failover.Mode = sim.FailoverDirect
	}
	return cfg
}
