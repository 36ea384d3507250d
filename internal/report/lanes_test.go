package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

func TestLanesLeases(t *testing.T) {
	var b builder
	// reentrant: outer 1..100, inner 10..20; the outer lasts to its own
	// release (the claim check judges the same windows)
	b.acquire(0, 0, 1, history.OK, "t0", 0)
	b.acquire(0, 9, 10, history.OK, "t0", 0)
	b.release(0, 20, history.OK, "t0")
	b.release(0, 100, history.OK, "t0")
	// validity ends before the release; an extend moves it
	b.acquire(1, 200, 201, history.OK, "t1", 300)
	b.ops = append(b.ops, history.Op{Kind: history.KindExtend, Client: 1, Key: "lock", Call: msd(290), Return: msd(291), Outcome: history.OK, Token: "t1", Deadline: msd(350)})
	b.release(1, 400, history.OK, "t1")
	// no expiry and no release: open to the end of the history
	b.acquire(2, 500, 501, history.OK, "t2", 0)
	b.acquire(2, 600, 601, history.Fail, "", 0)
	b.acquire(2, 700, 705, history.Unknown, "", 0)
	l := readLanes(history.History{Ops: b.ops}, history.Setup{Clients: 4, Nodes: 1}, nil)

	assert.Equal(t, []int{0, 1, 2, 3}, l.clients, "a client that did nothing still has its row")
	assert.Equal(t, msd(705), l.end)
	assert.ElementsMatch(t, []span{{start: msd(1), end: msd(100)}, {start: msd(10), end: msd(20)}}, l.byClient[0].leases)
	assert.Equal(t, []span{{start: msd(201), end: msd(350)}}, l.byClient[1].leases, "the extend's validity, not the release")
	assert.Equal(t, []span{{start: msd(501), end: msd(705), open: true}}, l.byClient[2].leases)
	require.Len(t, l.byClient[2].failed, 2)
	assert.Equal(t, checker.FailedAcquire{Client: 2, Key: "lock", Start: msd(600), End: msd(601), Outcome: history.Fail, Reason: "refused"}, l.byClient[2].failed[0])
	assert.Equal(t, history.Unknown, l.byClient[2].failed[1].Outcome)
	assert.Equal(t, map[string]int{"refused": 1, "error, outcome unknown": 1}, l.failed)
	assert.Empty(t, l.byClient[3].leases)
}

func TestLanesEnterExit(t *testing.T) {
	var b builder
	b.res(history.KindEnter, 0, 10, "t0", 0, history.OK)
	b.res(history.KindEnter, 0, 12, "t0", 0, history.OK) // nested: one stay
	b.res(history.KindExit, 0, 20, "t0", 0, history.OK)
	b.res(history.KindExit, 0, 30, "t0", 0, history.OK)
	b.ops = append(b.ops, history.Op{Kind: history.KindEnter, Client: 1, Key: "lock", Call: msd(40), Return: msd(41), Outcome: history.Unknown}) // never reached the resource
	b.res(history.KindEnter, 1, 50, "t1", 0, history.OK)                                                                                         // never exits
	b.ops = append(b.ops, history.Op{Kind: history.KindEnter, Client: 2, Key: "lock", Mode: "read", Call: msd(60), Return: msd(61), Outcome: history.OK, At: msd(60), Seq: 99})
	b.ops = append(b.ops, history.Op{Kind: history.KindExit, Client: 2, Key: "lock", Mode: "read", Call: msd(70), Return: msd(71), Outcome: history.OK, At: msd(70), Seq: 100})
	b.probe(80, 90, history.OK)
	l := readLanes(history.History{Ops: b.ops}, history.Setup{Clients: 2, Nodes: 1}, nil)

	assert.False(t, l.fenced)
	assert.Equal(t, []span{{start: msd(10), end: msd(30)}}, l.byClient[0].sections)
	assert.Equal(t, []span{{start: msd(50), end: msd(90), open: true}}, l.byClient[1].sections, "open to the history's end")
	assert.Equal(t, []span{{start: msd(60), end: msd(70), read: true}}, l.byClient[2].sections)
	assert.Len(t, l.probes, 1)
}

func TestLanesFencedWrites(t *testing.T) {
	l := readLanes(fencedPause(), history.Setup{Clients: 2, Nodes: 1}, nil)
	require.True(t, l.fenced)
	assert.Equal(t, []span{{start: msd(3), end: msd(3)}}, l.byClient[0].sections, "one accepted write")
	assert.Equal(t, []time.Duration{msd(902)}, l.byClient[0].rejected)
	assert.Equal(t, []span{{start: msd(603), end: msd(650)}}, l.byClient[1].sections, "first to last accepted write")
	require.Len(t, l.faults, 1)
	assert.Equal(t, msd(5), l.faults[0].Start)
}

func TestOverlapsOncePerWindow(t *testing.T) {
	iv := func(c int, from, to float64) checker.Interval {
		return checker.Interval{Client: c, Start: msd(from), End: msd(to)}
	}
	r := checker.Result{Checks: []checker.CheckResult{
		{Name: "exclusion", Verdict: vocab.Unsafe, Witnesses: []checker.Witness{{A: iv(1, 10, 50), B: iv(0, 20, 60)}}},
		{Name: "claim", Verdict: vocab.Unsafe, Witnesses: []checker.Witness{{A: iv(0, 20, 60), B: iv(1, 10, 50)}}}, // the same pair and window
		{Name: "fencing", Verdict: vocab.Unsafe, Witnesses: []checker.Witness{{A: iv(2, 100, 100), B: iv(3, 80, 80)}}},
		{Name: "liveness", Verdict: vocab.Safe, Witnesses: []checker.Witness{{A: iv(4, 0, 10), B: iv(5, 0, 10)}}},
	}}
	got := overlaps(r)
	require.Len(t, got, 2)
	assert.Equal(t, overlap{check: "exclusion", a: 1, b: 0, from: msd(10), start: msd(20), end: msd(50)}, got[0])
	assert.Equal(t, overlap{check: "fencing", a: 2, b: 3, from: msd(80), start: msd(80), end: msd(100), disjoint: true}, got[1])
}
