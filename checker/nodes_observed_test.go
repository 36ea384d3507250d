package checker

import (
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
)

// read is a node record: node saw key holding value (ok), gone (fail) or
// did not answer (unknown), the change falling in [since, at].
func read(node int, since, at time.Duration, out history.Outcome, value string, noTTL bool) history.Op {
	return history.Op{Kind: history.KindNode, Client: history.NoClient, Node: node, Key: "k", Call: since, Return: at,
		Outcome: out, Value: value, NoTTL: noTTL}
}

// A client that crashes between SETNX and EXPIRE leaves its key with no
// TTL: its acquire's outcome is unknown and says nothing of the node, the
// harness's reads do, and the hold runs to the history's end.
func TestNodesKeyWithoutTTLRunsToTheEnd(t *testing.T) {
	h := history.History{Ops: []history.Op{
		read(0, 0, 0, history.Fail, "", false),
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: ms / 5, Outcome: history.Unknown, Reason: history.ReasonError},
		read(0, 0, 5*ms, history.OK, "c0-1", true),
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 300 * ms, Return: 301 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindProbe, Client: history.NoClient, Key: "k", Call: 3000 * ms, Return: 4000 * ms, Outcome: history.Fail},
	}}
	lanes := Nodes(h, 5)
	want := []NodeHold{{Client: 0, Key: "k", Token: "c0-1", Start: 5 * ms, End: 4000 * ms, Ended: EndOpen, Observed: true, NoTTL: true}}
	if !reflect.DeepEqual(lanes[0].Holds, want) {
		t.Errorf("node 0 holds %+v, want %+v", lanes[0].Holds, want)
	}
	if !lanes[0].Observed || lanes[1].Observed {
		t.Errorf("observed: node 0 %v, node 1 %v; want true, false", lanes[0].Observed, lanes[1].Observed)
	}
}

// The design's own grants stay where they were stamped; a read that
// overlaps them adds nothing. A value no acquire returned is the one
// client's whose attempt was under way when it appeared (a failed attempt:
// a failed hold), nobody's when two clients were trying, the probe's
// while only the probe was. A key that
// gets its TTL later is one hold; a node that stops answering ends it.
func TestNodesObservedHolds(t *testing.T) {
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 10 * ms, Return: 11 * ms, Outcome: history.OK, Token: "c0-1",
			Granted: []int{0}, Asked: 1, TTL: 500 * ms},
		read(0, 5*ms, 12*ms, history.OK, "c0-1", false),
		{Kind: history.KindRelease, Client: 0, Key: "k", Call: 50 * ms, Return: 51 * ms, Outcome: history.OK, Token: "c0-1"},
		read(0, 50*ms, 55*ms, history.Fail, "", false),
		// node 1: a failed attempt of client 1's leaves value "x"
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 100 * ms, Return: 120 * ms, Outcome: history.Fail, Reason: history.ReasonNoMajority},
		read(1, 100*ms, 105*ms, history.OK, "x", true),
		read(1, 105*ms, 110*ms, history.OK, "x", false),
		read(1, 130*ms, 135*ms, history.Fail, "", false),
		// node 2: two clients trying at once, then the node goes down
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 200 * ms, Return: 220 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 205 * ms, Return: 225 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		read(2, 205*ms, 210*ms, history.OK, "y", false),
		read(2, 240*ms, 245*ms, history.Unknown, "", false),
		// node 3: the liveness probe's key
		{Kind: history.KindProbe, Client: history.NoClient, Key: "k", Call: 300 * ms, Return: 302 * ms, Outcome: history.OK, Token: "p"},
		read(3, 298*ms, 301*ms, history.OK, "p", false),
		read(3, 301*ms, 306*ms, history.Fail, "", false),
	}}
	lanes := Nodes(h, 4)
	want := map[int][]NodeHold{
		0: {{Client: 0, Key: "k", Token: "c0-1", Start: 10 * ms, End: 50 * ms, Ended: EndReleased}},
		1: {{Client: 1, Key: "k", Token: "x", Start: 105 * ms, End: 135 * ms, Ended: HoldGone, Failed: true, Observed: true}},
		2: {{Client: history.NoClient, Key: "k", Token: "y", Start: 210 * ms, End: 245 * ms, Ended: HoldUnobserved, Observed: true}},
		3: {{Client: history.NoClient, Key: "k", Token: "p", Start: 301 * ms, End: 306 * ms, Ended: HoldGone, Observed: true, Probe: true}},
	}
	for node, holds := range want {
		if !reflect.DeepEqual(lanes[node].Holds, holds) {
			t.Errorf("node %d holds %+v, want %+v", node, lanes[node].Holds, holds)
		}
	}
}

// A stale stamp that client 1 takes over: the key client 0's crashed
// acquire left is drawn up to the grant that replaced it, and no sliver
// of the reads' lag is left beside the design's own holds.
func TestNodesObservedCutAtDerivedHold(t *testing.T) {
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: ms / 5, Outcome: history.Unknown, Reason: history.ReasonError},
		read(0, 0, 5*ms, history.OK, "1500", true),
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 1500 * ms, Return: 1501 * ms, Outcome: history.OK, Token: "c1-1",
			Granted: []int{0}, Asked: 1, TTL: 500 * ms},
		read(0, 1500*ms, 1505*ms, history.OK, "2001", false),
		{Kind: history.KindRelease, Client: 1, Key: "k", Call: 1520 * ms, Return: 1521 * ms, Outcome: history.OK, Token: "c1-1"},
		read(0, 1520*ms, 1525*ms, history.Fail, "", false),
	}}
	want := []NodeHold{
		{Client: 0, Key: "k", Token: "1500", Start: 5 * ms, End: 1500 * ms, Ended: HoldTaken, Observed: true, NoTTL: true},
		{Client: 1, Key: "k", Token: "c1-1", Start: 1500 * ms, End: 1520 * ms, Ended: EndReleased},
	}
	if got := Nodes(h, 1)[0].Holds; !reflect.DeepEqual(got, want) {
		t.Errorf("holds %+v, want %+v", got, want)
	}
}
