package report

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// setnxExpireDeadlock is the crash between SETNX and EXPIRE as the
// simulator records it: client 0's acquire of unknown outcome, the
// harness's reads finding its key with no TTL on node 0 (nothing on the
// other nodes), client 1 refused, the probe refused.
func setnxExpireDeadlock() history.History {
	var b builder
	for n := range 5 {
		b.ops = append(b.ops, history.Op{Kind: history.KindNode, Client: history.NoClient, Node: n, Key: "lock", Outcome: history.Fail})
	}
	b.acquire(0, 0, 0.2, history.Unknown, "", 0)
	b.ops = append(b.ops, history.Op{Kind: history.KindNode, Client: history.NoClient, Node: 0, Key: "lock",
		Call: 0, Return: msd(5), Outcome: history.OK, Value: "c0-1", NoTTL: true})
	for i := range 20 {
		t := 300 + 60*float64(i)
		b.acquire(1, t, t+1, history.Fail, "", 0)
	}
	b.probe(3000, 4000, history.Fail)
	return history.History{Ops: b.ops}
}

// The deadlock's key is drawn on node 0 as a hold with no TTL running to
// the end and labelled so; the nodes a single-node design does not use
// share one row that says so.
func TestTimelineDrawsKeyWithoutTTL(t *testing.T) {
	in := newRun(t, "crash-between-setnx-expire", "setnx-expire", setnxExpireDeadlock(), 2, "deadlock")
	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)

	rows := tl.lanes.nodeRows
	require.Len(t, rows, 2)
	assert.Equal(t, NodeRow{Nodes: []int{0}, Label: "node 0", Holds: 1}, rows[0])
	assert.Equal(t, NodeRow{Nodes: []int{1, 2, 3, 4}, Label: "nodes 1–4", Empty: emptyUnused}, rows[1])
	hold := tl.lanes.nodeLane(0).Holds[0]
	assert.True(t, hold.NoTTL)
	assert.Equal(t, msd(4000), hold.End, "to the run's end")
	assert.Equal(t, "open", hold.Ended)

	var svg bytes.Buffer
	require.NoError(t, tl.writeTo(&svg, "svg"))
	for _, want := range []string{"c0&#39;s key with no TTL", ">nodes 1–4<", emptyUnused, "node: key with no TTL (never expires)"} {
		assert.Contains(t, svg.String(), want)
	}
}

// A node row with nothing to draw says why: a node the harness read but
// never found the key on, a node of a design that reports no per-node
// replies and was never read.
func TestNodeRowsSayWhyEmpty(t *testing.T) {
	var b builder
	b.acquire(0, 0, 1, history.OK, "c0-1", 501)
	b.ops[0].Granted, b.ops[0].Asked, b.ops[0].TTL = []int{0, 1}, 3, msd(500)
	b.release(0, 100, history.OK, "c0-1")
	b.ops = append(b.ops, history.Op{Kind: history.KindNode, Client: history.NoClient, Node: 2, Key: "lock", Outcome: history.Fail})
	cfg := testConfig("redlock", 1)
	cfg.Nodes = 4
	rows := NodeRows(history.History{Ops: b.ops}, cfg)
	require.Len(t, rows, 4)
	assert.True(t, rows[0].Content() && rows[1].Content())
	assert.Equal(t, emptyNoKey, rows[2].Empty)
	assert.Equal(t, emptyNotRead, rows[3].Empty)

	tl, err := newTimeline(context.Background(), newRun(t, "control-contention", "redlock", history.History{Ops: b.ops}, 1, "safe"))
	require.NoError(t, err)
	var svg bytes.Buffer
	require.NoError(t, tl.writeTo(&svg, "svg"))
	assert.Contains(t, svg.String(), emptyNoKey)
}
