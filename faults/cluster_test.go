package faults_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
)

// TestClusterKindsNeedACluster: the Redis Cluster kinds refuse every
// other backend, and those that elect a replica or cut its link refuse a
// cluster without replicas, each in one line naming what is missing.
func TestClusterKindsNeedACluster(t *testing.T) {
	kinds := map[string]sim.Validator{
		"cluster-kill-master":      faults.ClusterKillMaster{},
		"cluster-cut-replication":  faults.ClusterCutReplication{},
		"cluster-failover":         faults.ClusterFailover{},
		"cluster-reshard":          faults.ClusterReshard{},
		"cluster-partition-master": faults.ClusterPartitionMaster{},
	}
	for name, f := range kinds {
		for _, b := range []sim.Backend{sim.BackendMiniredis, sim.BackendRedis} {
			err := f.Validate(sim.Config{Cluster: sim.ClusterConfig{Backend: b, Nodes: 3, Replicas: 1}})
			assert.ErrorContains(t, err, "needs backend redis-cluster, not "+string(b), name)
		}
		on := sim.Config{Cluster: sim.ClusterConfig{Backend: sim.BackendRedisCluster, Nodes: 3, Replicas: 1}}
		assert.NoError(t, f.Validate(on), name)
		on.Cluster.Replicas = 0
		if name == "cluster-reshard" {
			assert.NoError(t, f.Validate(on), "a slot moves between masters: no replica needed")
			on.Cluster.Nodes = 1
			assert.ErrorContains(t, f.Validate(on), "at least 2 masters")
			continue
		}
		assert.ErrorContains(t, f.Validate(on), "replicas: 1", name)
	}
}
