package run_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim/node"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/sim"
)

// Setup carries what the report reads of a run as data: what the registry
// knows of the design, the fencing it runs with, the retry policy in
// verdict.json's words and the failover with its defaults.
func TestSetupDescribesTheRun(t *testing.T) {
	cfg := sim.Config{
		Algorithm: "redlock",
		Options: lock.Options{TTL: time.Second, Retry: lock.RetryPolicy{Interval: 20 * time.Millisecond, MaxTries: 3},
			Wait: lock.WaitNotify, Fencing: true},
		Cluster:  sim.ClusterConfig{Backend: sim.BackendRedis, Server: sim.ServerValkey, Nodes: 3, Replicas: 1, Failover: sim.FailoverConfig{Mode: sim.FailoverSentinel}},
		Clients:  4,
		Duration: 2 * time.Second,
		Seed:     9,
	}
	s := run.Setup(cfg)
	assert.True(t, s.Registered && s.MultiNode, "redlock locks on every node")
	assert.True(t, s.Fencing && s.FencingOption)
	require.NotNil(t, s.Retries)
	assert.Equal(t, 2, *s.Retries, "retries count the attempts after the first")
	assert.Equal(t, "notify", s.Wait)
	assert.Equal(t, uint64(9), s.Seed)
	assert.Equal(t, []string{}, s.Faults)
	require.NotNil(t, s.Failover)
	assert.Equal(t, history.FailoverSetup{Mode: history.FailoverSentinel, Product: "Valkey", SentinelBinary: sim.ServerValkey.SentinelBinary(),
		Sentinels: node.Sentinels, Quorum: node.SentinelQuorum, DownAfter: history.Duration(1500 * time.Millisecond),
		FailoverTimeout: history.Duration(2 * time.Second), ParallelSyncs: 1}, *s.Failover)

	cfg.Algorithm, cfg.Cluster.Replicas, cfg.Options.Fencing = "setpx", 0, false
	s = run.Setup(cfg)
	assert.True(t, s.Registered)
	assert.False(t, s.MultiNode, "setpx locks on node 0")
	assert.False(t, s.Fencing)
	assert.Nil(t, s.Failover, "no replica, no failover")

	cfg.Algorithm = "not-registered"
	assert.False(t, run.Setup(cfg).Registered)
}
