package history_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
)

// The failed acquires' reasons, their per-node replies, the waits for the
// unlock message before an attempt, the faults' targets and the harness's
// node records survive history.jsonl.
func TestReasonsAndTargetsRoundTrip(t *testing.T) {
	ms := time.Millisecond
	in := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 0, Return: 1000 * ms, Outcome: history.Fail,
			Reason: history.ReasonNoMajority, Granted: []int{2}, Asked: 5, Err: "set on 1 of 5"},
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 100 * ms, Outcome: history.Unknown, Reason: history.ReasonTimeout},
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 3 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 40 * ms, Return: 43 * ms, Outcome: history.Fail, Reason: history.ReasonRefused, WaitFrom: 4 * ms},
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 3 * ms, Outcome: history.OK, Token: "c0-1",
			Granted: []int{0, 1, 2}, Asked: 5, TTL: time.Second, Deadline: 900 * ms},
		{Kind: history.KindFault, Client: history.NoClient, Call: 0, Return: 2 * time.Second, Outcome: history.OK, Fault: "partition", FaultID: 1,
			Target: &history.Target{Kind: "partition", Link: true, Groups: [][]string{{"c0", "n0"}, {"c1", "n1"}}}},
		{Kind: history.KindFault, Client: history.NoClient, Call: 0, Return: 2 * time.Second, Outcome: history.OK, Fault: "clock-jump-node", FaultID: 2,
			Target: &history.Target{Kind: "clock-jump-node", Nodes: []int{2}, ClockJump: 2 * time.Second}},
		{Kind: history.KindNode, Client: history.NoClient, Node: 0, Key: "k", Call: 0, Return: 5 * ms, Outcome: history.OK, Value: "c0-1", NoTTL: true},
		{Kind: history.KindNode, Client: history.NoClient, Node: 3, Key: "k", Call: 5 * ms, Return: 10 * ms, Outcome: history.OK, Value: "c0-1", TTL: 990 * ms},
		{Kind: history.KindNode, Client: history.NoClient, Node: 3, Key: "k", Call: 10 * ms, Return: 15 * ms, Outcome: history.Unknown, Err: "node is down"},
		{Kind: history.KindNode, Client: history.NoClient, Node: 4, Key: "k", Call: 10 * ms, Return: 15 * ms, Outcome: history.Fail, Role: history.RoleMaster, Event: "MOVED"},
		{Kind: history.KindRedirect, Client: 1, Call: 12 * ms, Return: 12 * ms, Outcome: history.OK, Event: "ASK", Detail: "12971 127.0.0.1:7001"},
	}}
	var buf bytes.Buffer
	if err := in.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	out, err := history.ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the history:\n%+v\n%+v", in.Ops, out.Ops)
	}
	if _, err := history.ReadJSONL(bytes.NewReader([]byte(`{"kind":"node","client":-1,"call":0,"return":1,"outcome":"fail","node":-1}`))); err == nil {
		t.Fatal("a node record of node -1 was accepted")
	}
	if _, err := history.ReadJSONL(bytes.NewReader([]byte(`{"kind":"acquire","client":0,"call":0,"return":1,"outcome":"fail","reason":"bad luck"}`))); err == nil {
		t.Fatal("an unknown reason was accepted")
	}
	for _, line := range []string{
		`{"kind":"acquire","client":0,"call":5,"return":6,"outcome":"fail","wait_from":7}`,
		`{"kind":"release","client":0,"call":5,"return":6,"outcome":"ok","wait_from":1}`,
		`{"kind":"acquire","client":0,"call":5,"return":6,"outcome":"ok","wait_from":-1}`,
	} {
		if _, err := history.ReadJSONL(bytes.NewReader([]byte(line))); err == nil {
			t.Errorf("accepted %s: a wait for the unlock message ends at an acquire's call", line)
		}
	}
}

// A node record's role is one ROLE names; a line from before roles were
// recorded reads with none.
func TestNodeRecordRoles(t *testing.T) {
	_, err := history.ReadJSONL(bytes.NewBufferString(`{"kind":"node","client":-1,"key":"k","call":0,"return":1,"outcome":"fail","role":"sentinel"}` + "\n"))
	if err == nil {
		t.Error("a node record with role sentinel read without error")
	}
	h, err := history.ReadJSONL(bytes.NewBufferString(`{"kind":"node","client":-1,"key":"k","call":0,"return":1,"outcome":"fail","node":2}` + "\n"))
	if err != nil || len(h.Ops) != 1 || h.Ops[0].Role != "" {
		t.Errorf("a node record without a role: %+v, %v", h.Ops, err)
	}
}
