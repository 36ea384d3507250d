package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// Each kind's rule, against a history where the fault acted and one where
// it did not.
func TestFaultsUnacted(t *testing.T) {
	ms := time.Millisecond
	fault := func(id int, from, to time.Duration, tg history.Target) history.Op {
		return history.Op{Kind: history.KindFault, Client: history.NoClient, Call: from, Return: to, Outcome: history.OK,
			Fault: string(tg.Kind), FaultID: id, Target: &tg}
	}
	op := func(k history.Kind, c int, from, to time.Duration) history.Op {
		return history.Op{Kind: k, Client: c, Key: "k", Call: from, Return: to, Outcome: history.OK, Token: "t"}
	}
	sentinel := func(at time.Duration, event, detail string) history.Op {
		return history.Op{Kind: history.KindSentinel, Client: history.NoClient, Call: at, Return: at, Outcome: history.OK, Event: event, Detail: detail, Source: "s0"}
	}
	pause := fault(1, 500*ms, 760*ms, history.Target{Kind: "pause-client", Clients: []int{0}})
	cutPause := pause
	cutPause.AtEnd, cutPause.Cut = true, true
	toTheEnd := pause
	toTheEnd.AtEnd = true
	killed := fault(1, 600*ms, 900*ms, history.Target{Kind: "kill-node", Nodes: []int{0}, Down: -1})
	sentinelFailover := fault(1, 100*ms, 1130*ms, history.Target{Kind: "failover", Nodes: []int{0}, Sentinel: true})
	direct := fault(1, 100*ms, 1130*ms, history.Target{Kind: "failover", Nodes: []int{0}})
	cut := fault(1, 200*ms, 400*ms, history.Target{Kind: "partition", Link: true, Groups: [][]string{{"c1"}, {"nodes"}}})
	isolated := func(refused, election time.Duration) history.Op {
		tg := history.Target{Kind: "cluster-partition-master", Nodes: []int{2}, Slot: 12971, Refused: refused}
		if election > 0 {
			tg.Nodes, tg.Election = append(tg.Nodes, 5), election
		}
		return fault(1, 100*ms, 900*ms, tg)
	}
	failed := fault(1, 10*ms, 10*ms, history.Target{Kind: "pause-node", Nodes: []int{0}})
	failed.Outcome, failed.Err = history.Fail, "node 0: down"

	for _, c := range []struct {
		name string
		ops  []history.Op
		why  string // "" when it acted
	}{
		{"a pause that ran its course", []history.Op{op(history.KindAcquire, 0, 0, ms), pause}, ""},
		{"a pause to the end, as planned", []history.Op{op(history.KindAcquire, 0, 0, ms), toTheEnd}, ""},
		{"a pause cut by the run's end", []history.Op{op(history.KindAcquire, 0, 0, ms), cutPause}, "was cut off by the run's end at 760ms, 260ms after it began, before client 0 got past it"},
		{"a start that failed", []history.Op{failed}, "did not start: node 0: down"},
		{"a kill some client met", []history.Op{killed, op(history.KindRelease, 0, 650*ms, 651*ms)}, ""},
		{"a kill no client met", []history.Op{op(history.KindAcquire, 0, 0, ms), killed}, "met no client: no lock operation was in flight at or after the kill-node (600ms)"},
		{"a Sentinel failover that promoted", []history.Op{op(history.KindAcquire, 0, 0, 1200*ms), sentinel(1200*ms, "+sdown", "master locksim-n0 127.0.0.1 7000"),
			sentinel(1100*ms, "+switch-master", "locksim-n0 127.0.0.1 7000 127.0.0.1 7001"), sentinelFailover}, ""},
		{"a Sentinel failover the run's end cut before +switch-master", []history.Op{op(history.KindAcquire, 0, 0, 1200*ms),
			sentinel(1050*ms, "+sdown", "master locksim-n0 127.0.0.1 7000 #quorum 1/2"), sentinelFailover, sentinel(1500*ms, "+switch-master", "locksim-n0 127.0.0.1 7000 127.0.0.1 7001")},
			"promoted no replica: Sentinel announced no +switch-master for locksim-n0 between the kill (100ms) and the heal (1.13s); the first sentinel called it down at 1.05s"},
		{"a Sentinel failover nobody called down", []history.Op{op(history.KindAcquire, 0, 0, 1200*ms), sentinelFailover},
			"promoted no replica: Sentinel announced no +switch-master for locksim-n0 between the kill (100ms) and the heal (1.13s); no sentinel even called the master down"},
		{"the harness's own failover", []history.Op{op(history.KindAcquire, 0, 0, 1200*ms), direct}, ""},
		{"a failover no client met", []history.Op{op(history.KindAcquire, 0, 0, 50*ms), direct}, "met no client: no lock operation was in flight at or after the failover (100ms)"},
		{"a cluster master cut off until it refused and its replica won", []history.Op{op(history.KindAcquire, 0, 0, ms), isolated(1050*ms, 2300*ms)}, ""},
		{"a cluster master cut off until it refused", []history.Op{op(history.KindAcquire, 0, 0, ms), isolated(1050*ms, 0)}, ""},
		{"a cluster master cut off too briefly to notice", []history.Op{op(history.KindAcquire, 0, 150*ms, 250*ms), isolated(0, 0)},
			"cut node 2 off for 800ms, but it did not refuse a write nor was its replica elected before the heal"},
		{"a partition of a client in flight", []history.Op{cut, op(history.KindAcquire, 1, 150*ms, 250*ms)}, ""},
		{"a partition of a client waiting for the unlock message", []history.Op{cut, func() history.Op {
			o := op(history.KindAcquire, 1, 450*ms, 451*ms)
			o.WaitFrom = 100 * ms
			return o
		}()}, ""},
		{"a partition of a client holding a lease across it", []history.Op{cut, op(history.KindAcquire, 1, 100*ms, 101*ms), op(history.KindRelease, 1, 500*ms, 501*ms)}, ""},
		{"a partition of an idle client", []history.Op{cut, op(history.KindAcquire, 0, 150*ms, 250*ms), op(history.KindAcquire, 1, 500*ms, 501*ms)},
			"cut no link in use: no client it cut off had an operation in flight or held a lease from 200ms to 400ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FaultsUnacted(history.History{Ops: c.ops})
			if c.why == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, 1, got[0].FaultID)
			assert.Equal(t, c.why, got[0].Why)
		})
	}
}

// A fault acted when one of its records did: a random nemesis's rounds, or
// a fault recorded twice, count together.
func TestFaultsUnactedAnyRecord(t *testing.T) {
	ms := time.Millisecond
	tg := history.Target{Kind: "pause-client", Clients: []int{0}}
	first := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 0, Return: 100 * ms, Outcome: history.OK, Fault: "p", FaultID: 3, Target: &tg}
	second := first
	second.Call, second.Return, second.AtEnd, second.Cut = 800*ms, 900*ms, true, true
	assert.Empty(t, FaultsUnacted(history.History{Ops: []history.Op{first, second}}))
	assert.Len(t, FaultsUnacted(history.History{Ops: []history.Op{second}}), 1)
}
