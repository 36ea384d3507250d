package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// End-to-end runs of catalogue scenarios that only these faults make
// possible, on both backends.

// Scenario 11: the lock key never reaches the replica; the master dies
// while client 0 holds the lock; client 1 takes it on the promoted replica.
func TestFailoverAsyncReplicationIsUnsafe(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := run(t, sim.Config{
			Algorithm: "setpx",
			Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
			Cluster:   sim.ClusterConfig{Backend: b, Nodes: 1, Replicas: 1},
			Clients:   2,
			Duration:  time.Second,
			Hold:      200 * time.Millisecond,
			Seed:      1,
			Faults: []sim.Planned{
				{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"n0"}, {"r0"}}}}, Start: sim.Trigger{At: 0}},
				{Fault: faults.Failover{Node: 0}, Start: sim.Trigger{Client: 0, Point: sim.PointAfterEnter, Nth: 1}},
			},
		})
		assertFired(t, res)
		assert.Equal(t, checker.Unsafe, r.Verdict, "%+v", r)
		assert.Equal(t, checker.Unsafe, r.Check("claim").Verdict, "the lock broke its own promise")
	})
}

// Scenario 12 (Kleppmann): client 0 reaches nodes 0-2, client 1 nodes 2-4;
// node 2 restarts empty while client 0 is inside; client 1 builds a
// majority with it.
func TestRedlockRestartWithoutFsyncIsUnsafe(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := run(t, sim.Config{
			Algorithm: "redlock",
			Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, NodeTimeout: 20 * time.Millisecond, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
			Cluster:   sim.ClusterConfig{Backend: b, Nodes: 5},
			Clients:   2,
			Duration:  time.Second,
			Hold:      300 * time.Millisecond,
			Seed:      1,
			Faults: []sim.Planned{
				{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"c0", "n0", "n1", "n2"}, {"c1", "n2", "n3", "n4"}}}}, Start: sim.Trigger{At: 0}},
				{Fault: faults.KillNode{Node: 2, RestartAfter: 0}, Start: sim.Trigger{Client: 0, Point: sim.PointAfterEnter, Nth: 1}},
			},
		})
		assertFired(t, res)
		assert.Equal(t, checker.Unsafe, r.Verdict, "%+v", r)
		assert.Equal(t, checker.Unsafe, r.Check("claim").Verdict)
	})
}

func assertFired(t *testing.T, res *sim.Result) {
	t.Helper()
	want := len(res.Config.Faults)
	got := 0
	for _, op := range res.History.Ops {
		if op.Kind == sim.KindFault && op.FaultID <= want {
			assert.Equal(t, sim.OK, op.Outcome, "%s: %s", op.Fault, op.Err)
			got++
		}
	}
	assert.Equal(t, want, got, "every fault fired and healed: %v", res.Notes)
}
