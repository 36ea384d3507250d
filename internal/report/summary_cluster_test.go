package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// TestClusterFailoverSectionNamesRefusalAndElection: a master cut off from
// the majority has its CLUSTERDOWN refusal on its own line, beside the
// election of its replica; a partition healed before either names neither.
func TestClusterFailoverSectionNamesRefusalAndElection(t *testing.T) {
	cfg := history.Setup{Backend: "redis-cluster", Replicas: 1}
	fault := func(id int, tgt history.Target) history.Op {
		return history.Op{Kind: history.KindFault, FaultID: id, Fault: string(vocab.KindClusterPartition), Call: time.Second, Target: &tgt}
	}
	both := history.History{Ops: []history.Op{fault(2, history.Target{
		Kind: vocab.KindClusterPartition, Nodes: []int{2, 5}, Slot: 12971,
		Refused: 1050 * time.Millisecond, Election: 2175 * time.Millisecond,
	})}}
	got := failoverSection(cfg, both)
	assert.Contains(t, got, "slot 12971's master, node 2, cut off from the majority, **refused writes (CLUSTERDOWN) after 1050 ms**")
	assert.Contains(t, got, "node 2, replaced by node 5, **elected after 2175 ms**")

	healed := history.History{Ops: []history.Op{fault(2, history.Target{Kind: vocab.KindClusterPartition, Nodes: []int{2}, Slot: 12971})}}
	got = failoverSection(cfg, healed)
	assert.NotContains(t, got, "refused writes")
	assert.Contains(t, got, "no election during the run")
}
