package checker

import (
	"testing"
	"time"

	"github.com/locksim/locksim/history"
)

// Kleppmann's clock jump as the node lanes show it: node 2's clock jumps
// 2 s, client 0's key there expires at the jump, and client 1 is granted
// nodes 2-4 while client 0 still holds nodes 0-1.
func TestNodesClockJump(t *testing.T) {
	ms := time.Millisecond
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 100 * ms, Outcome: history.OK, Token: "c0-1",
			Granted: []int{0, 1, 2}, Asked: 5, TTL: time.Second, Deadline: 888 * ms},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 100 * ms, Return: 200 * ms, Outcome: history.OK, Token: "c1-1",
			Granted: []int{2, 3, 4}, Asked: 5, TTL: time.Second, Deadline: 988 * ms},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 300 * ms, Return: 500 * ms, Outcome: history.Fail,
			Reason: history.ReasonNoMajority, Granted: []int{3}, Asked: 5},
		{Kind: history.KindRelease, Client: 0, Key: "k", Call: 220 * ms, Return: 320 * ms, Outcome: history.Unknown, Token: "c0-1"},
		{Kind: history.KindFault, Client: history.NoClient, Call: 100 * ms, Return: 2000 * ms, Outcome: history.OK, FaultID: 3,
			Target: &history.Target{Kind: "clock-jump-node", Nodes: []int{2}, ClockJump: 2 * time.Second}},
		{Kind: history.KindFault, Client: history.NoClient, Call: 400 * ms, Return: 600 * ms, Outcome: history.OK, FaultID: 4,
			Target: &history.Target{Kind: "kill-node", Nodes: []int{0}, Down: 100 * ms}},
	}}
	lanes := Nodes(h, 5)
	if len(lanes) != 5 {
		t.Fatalf("%d lanes, want 5", len(lanes))
	}
	want := map[int][]NodeHold{
		0: {{Client: 0, Key: "k", Token: "c0-1", Start: 0, End: 220 * ms, Ended: EndReleased}},
		2: {{Client: 0, Key: "k", Token: "c0-1", Start: 0, End: 100 * ms, Ended: EndExpired},
			{Client: 1, Key: "k", Token: "c1-1", Start: 100 * ms, End: 1100 * ms, Ended: EndExpired}},
		3: {{Client: 1, Key: "k", Token: "c1-1", Start: 100 * ms, End: 300 * ms, Ended: HoldTaken},
			{Client: 1, Key: "k", Start: 300 * ms, End: 500 * ms, Ended: HoldUndone, Failed: true}},
	}
	for node, holds := range want {
		got := lanes[node].Holds
		if len(got) != len(holds) {
			t.Fatalf("node %d: holds %+v, want %+v", node, got, holds)
		}
		for i := range holds {
			if got[i] != holds[i] {
				t.Errorf("node %d hold %d: %+v, want %+v", node, i, got[i], holds[i])
			}
		}
	}
	if c := lanes[2].Clocks; len(c) != 1 || c[0].Offset != 2*time.Second {
		t.Errorf("node 2 clocks %+v, want one +2s offset", c)
	}
	if s := lanes[0].States; len(s) != 1 || s[0].State != "down" || s[0].End != 500*ms {
		t.Errorf("node 0 states %+v, want down 400-500ms", s)
	}
	v := Read(h)
	if len(v.Failed) != 1 || v.Failed[0].Words() != "majority not reached 1/5" {
		t.Errorf("failed acquires %+v, want one majority not reached 1/5", v.Failed)
	}
}

// On a Redis Cluster a design's node 0 is the whole cluster: ObservedNodes
// draws only what the harness read off each server, so the key shows on
// the server that held it (node 2) and not on node 0, which Nodes would
// derive from the design's reply.
func TestObservedNodesLeaveTheDesignsNodesOut(t *testing.T) {
	ms := time.Millisecond
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 10 * ms, Outcome: history.OK, Token: "c0-1",
			Granted: []int{0}, Asked: 1, TTL: time.Second, Deadline: 1000 * ms},
		{Kind: history.KindNode, Client: history.NoClient, Key: "k", Node: 2, Call: 5 * ms, Return: 6 * ms,
			Outcome: history.OK, Value: "c0-1", TTL: time.Second},
	}}
	derived := Nodes(h, 3)
	if len(derived[0].Holds) == 0 {
		t.Fatal("Nodes derives no hold on node 0 from the design's reply")
	}
	observed := ObservedNodes(h, 3)
	if len(observed[0].Holds) != 0 {
		t.Errorf("ObservedNodes: node 0 holds %v, want none", observed[0].Holds)
	}
	if len(observed[2].Holds) != 1 || !observed[2].Holds[0].Observed || observed[2].Holds[0].Token != "c0-1" {
		t.Errorf("ObservedNodes: node 2 holds %+v, want the observed c0-1", observed[2].Holds)
	}
}
