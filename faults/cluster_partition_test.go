package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/vocab"
)

// A cluster-partition-master cuts a kept client's links to every node but
// the master and every other client's link to the master, nothing else;
// it needs a majority of masters left to elect, and its client in range.
func TestClusterPartitionMasterLinks(t *testing.T) {
	cfg := sim.Config{Clients: 3, Cluster: sim.ClusterConfig{Backend: sim.BackendRedisCluster, Nodes: 3, Replicas: 1}}
	f := ClusterPartitionMaster{Clients: []int{0}}
	require.NoError(t, f.Validate(cfg))
	assert.Equal(t, "cluster-partition-master (the lock key's slot; c0 on its side)", f.String())

	link := func(c, n int) network.Link { return network.Link{From: network.ClientEnd(c), To: network.NodeEnd(n)} }
	want := []network.Link{link(0, 0), link(0, 1), link(0, 3), link(0, 4), link(0, 5), link(1, 2), link(2, 2)}
	assert.ElementsMatch(t, want, f.clientLinks(3, 6, 2), "master node 2, client 0 on its side")
	assert.ElementsMatch(t, []network.Link{link(0, 2), link(1, 2), link(2, 2)}, ClusterPartitionMaster{}.clientLinks(3, 6, 2),
		"no client on its side: every client loses the master only")

	two := cfg
	two.Cluster.Nodes = 2
	assert.ErrorContains(t, f.Validate(two), "at least 3 masters (nodes: 3)")
	assert.ErrorContains(t, ClusterPartitionMaster{Clients: []int{3}}.Validate(cfg), "client")

	e, ok := Lookup(vocab.KindClusterPartition)
	require.True(t, ok)
	c := 1
	built, err := e.Build(Spec{Client: &c})
	require.NoError(t, err)
	assert.Equal(t, ClusterPartitionMaster{Clients: []int{1}}, built)
}
