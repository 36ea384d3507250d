package report

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// clusterFailoverHistory is a cluster-kill-master as the harness records
// it: node 2 owns the key's slot and holds c0-1 until it is killed; node
// 5, its replica, wins the election and serves the slot, where client 1
// takes the lock after a MOVED; nodes 0 and 1 are masters of other
// slots, nodes 3 and 4 their replicas.
func clusterFailoverHistory() history.History {
	ms := time.Millisecond
	node := func(n int, at time.Duration, out history.Outcome, role, redirect, value string) history.Op {
		return history.Op{Kind: history.KindNode, Client: history.NoClient, Key: "locksim:0", Node: n, Call: at - ms, Return: at,
			Outcome: out, Role: role, Event: redirect, Value: value, TTL: time.Second}
	}
	ops := []history.Op{
		node(0, 5*ms, history.Fail, history.RoleMaster, "MOVED", ""),
		node(1, 5*ms, history.Fail, history.RoleMaster, "MOVED", ""),
		node(2, 5*ms, history.Fail, history.RoleMaster, "", ""),
		node(3, 5*ms, history.Fail, history.RoleReplica, "MOVED", ""),
		node(4, 5*ms, history.Fail, history.RoleReplica, "MOVED", ""),
		node(5, 5*ms, history.Fail, history.RoleReplica, "", ""),
		{Kind: history.KindAcquire, Client: 0, Key: "locksim:0", Call: 10 * ms, Return: 12 * ms, Outcome: history.OK, Token: "c0-1", Deadline: time.Second},
		node(2, 15*ms, history.OK, history.RoleMaster, "", "c0-1"),
		node(2, 40*ms, history.Unknown, "", "", ""),
		{Kind: history.KindFault, Client: history.NoClient, Call: 30 * ms, Return: 2000 * ms, Outcome: history.OK, Fault: "cluster-kill-master (the lock key's slot)", FaultID: 1,
			Target: &history.Target{Kind: "cluster-kill-master", Nodes: []int{2, 5}, Election: 1200 * ms, Slot: 12971}},
		node(5, 1250*ms, history.Fail, history.RoleMaster, "", ""),
		{Kind: history.KindRedirect, Client: 1, Call: 1260 * ms, Return: 1260 * ms, Outcome: history.OK, Event: "MOVED", Detail: "12971 127.0.0.1:7005"},
		{Kind: history.KindAcquire, Client: 1, Key: "locksim:0", Call: 1260 * ms, Return: 1262 * ms, Outcome: history.OK, Token: "c1-1", Deadline: 2262 * ms},
		node(5, 1265*ms, history.OK, history.RoleMaster, "", "c1-1"),
	}
	return history.History{Ops: ops}
}

// On a Redis Cluster the node rows are the servers as the harness read
// them: each master (and the promoted replica) its own row labelled with
// its roles, the replicas of other masters folded into one row that says
// so; no row claims a single-node design leaves it unused.
func TestClusterNodeRows(t *testing.T) {
	cfg := testConfig("setpx", 2)
	cfg.Backend, cfg.Nodes, cfg.Registered, cfg.MultiNode = backendCluster, 3, true, false
	rows := NodeRows(clusterFailoverHistory(), cfg)
	require.Len(t, rows, 5, "%+v", rows)
	assert.Equal(t, NodeRow{Nodes: []int{0}, Label: "node 0\nmaster", Empty: emptyOtherMaster}, rows[0])
	assert.Equal(t, NodeRow{Nodes: []int{1}, Label: "node 1\nmaster", Empty: emptyOtherMaster}, rows[1])
	assert.Equal(t, "node 2\nmaster", rows[2].Label)
	assert.Equal(t, 1, rows[2].Holds)
	assert.Equal(t, "node 5\nreplica → master", rows[3].Label)
	assert.Equal(t, 1, rows[3].Holds)
	assert.Equal(t, NodeRow{Nodes: []int{3, 4}, Label: "nodes 3, 4\nreplicas", Empty: "replicas of other masters, never promoted"}, rows[4])
}

// The chart draws the election with its measured length on the winner's
// row, the slot's owner, and the MOVED the client met, each in the
// legend; the fault's instant "failover" state gives way to the election.
func TestClusterTimelineMarks(t *testing.T) {
	in := newRun(t, "cluster-failover-lost-window", "setpx", clusterFailoverHistory(), 2, "unsafe")
	in.Setup.Backend, in.Setup.Nodes = backendCluster, 3
	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)
	require.NotNil(t, tl.lanes.cluster)
	assert.Equal(t, []clusterElection{{faultID: 1, from: 2, to: 5, start: 30 * time.Millisecond, end: 1230 * time.Millisecond}}, tl.lanes.cluster.elections)
	for _, n := range tl.lanes.nodes {
		assert.Empty(t, n.States, "node %d: the election replaces the failover instant", n.Node)
	}
	var legend []string
	for _, it := range tl.legend {
		legend = append(legend, it.label)
	}
	assert.Contains(t, legend, "MOVED reply the client met (it followed it)")
	assert.NotContains(t, legend, "ASK reply the client met (slot migrating)")
	assert.Contains(t, legend, "cluster failover: election, fault → replica serving the slot (measured)")
	assert.Contains(t, legend, "cluster: the master serving the lock key's slot (its owner), as the harness read it")
	require.NoError(t, tl.writeTo(discard{}, "svg"))
	var texts []string
	for _, p := range tl.panels {
		texts = append(texts, p.labels.texts...)
		require.NotEmpty(t, p.labels.marks, "the MOVED mark is kept clear of labels")
		for i, box := range p.labels.taken {
			for _, m := range p.labels.marks {
				assert.False(t, boxesMeet(box, m), "label %q covers a redirect mark", p.labels.texts[i])
			}
		}
	}
	assert.Contains(t, texts, "election 1200 ms (F1): node 5 replaces node 2")
	assert.Contains(t, texts, "owns slot 12971 (locksim:0)")
	assert.Contains(t, texts, emptyOtherMaster)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
