package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// clockJump is Kleppmann's node clock jump on five nodes, as the simulator
// records it: a partition [c0 n0 n1 n2] | [c1 n2 n3 n4] for the whole
// run, client 0 granted nodes 0-2, node 2's clock jumping 2 s while
// client 0 is inside, client 1 granted nodes 2-4 and entering while client
// 0 still is; then a failed attempt of client 1 (majority not reached).
func clockJump() history.History {
	var b builder
	grant := func(nodes ...int) {
		b.ops[len(b.ops)-1].Granted, b.ops[len(b.ops)-1].Asked, b.ops[len(b.ops)-1].TTL = nodes, 5, time.Second
	}
	b.acquire(0, 0, 100, history.OK, "c0-1", 888)
	grant(0, 1, 2)
	b.res(history.KindEnter, 0, 100, "c0-1", 0, history.OK)
	b.acquire(1, 100, 200, history.OK, "c1-1", 988)
	grant(2, 3, 4)
	b.res(history.KindEnter, 1, 200, "c1-1", 0, history.OK)
	b.res(history.KindExit, 1, 220, "c1-1", 0, history.OK)
	b.res(history.KindExit, 0, 221, "c0-1", 0, history.OK)
	b.release(1, 222, history.OK, "c1-1")
	b.release(0, 222, history.Unknown, "c0-1")
	b.acquire(1, 400, 1400, history.Fail, "", 0)
	grant(3)
	b.ops[len(b.ops)-1].Reason = history.ReasonNoMajority
	b.fault(1, "partition [c0 n0 n1 n2] | [c1 n2 n3 n4] (client 0 at before-acquire #1)", 0, 2000)
	b.ops[len(b.ops)-1].Target = &history.Target{Kind: "partition", Link: true, Groups: [][]string{{"c0", "n0", "n1", "n2"}, {"c1", "n2", "n3", "n4"}}}
	b.fault(2, "pause-client 1 (client 1 at before-acquire #1)", 0, 100)
	b.ops[len(b.ops)-1].Target = &history.Target{Kind: "pause-client", Clients: []int{1}}
	b.fault(3, "clock-jump-node 2 by +2s (client 0 at after-enter #1)", 100, 2000)
	b.ops[len(b.ops)-1].Target = &history.Target{Kind: "clock-jump-node", Nodes: []int{2}, ClockJump: 2 * time.Second}
	b.fault(4, "pause-client 0 (client 0 at after-enter #1)", 100, 200)
	b.ops[len(b.ops)-1].Target = &history.Target{Kind: "pause-client", Clients: []int{0}}
	b.probe(2010, 2011, history.OK)
	return history.History{Ops: b.ops}
}

func TestTimelineNodeLanesAndZoom(t *testing.T) {
	in := newRun(t, "redlock-node-clock-jump", "redlock", clockJump(), 2, "unsafe")
	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)

	var nodes []string
	for _, r := range tl.rows {
		if r.kind == rowNode {
			nodes = append(nodes, r.label)
		}
	}
	assert.Equal(t, []string{"node 0", "node 1", "node 2", "node 3", "node 4"}, nodes)
	node2 := tl.lanes.nodes[2]
	require.Len(t, node2.Holds, 2, "node 2 held client 0's token, then client 1's")
	assert.Equal(t, []int{0, 1}, []int{node2.Holds[0].Client, node2.Holds[1].Client})
	assert.Equal(t, msd(100), node2.Holds[0].End, "the jump expired client 0's key on node 2")
	require.Len(t, node2.Clocks, 1)

	// faults on the rows they hit
	byID := map[int]faultMark{}
	for _, m := range tl.faults {
		byID[m.f.ID] = m
	}
	assert.True(t, byID[1].link && byID[1].runLong, "the partition is a link mark lasting the run")
	assert.Len(t, byID[1].rows, 7, "both clients and every node are endpoints of the partition")
	assert.Equal(t, []int{tl.clientRow(1)}, byID[2].rows)
	assert.Equal(t, []int{tl.rowOf(rowNode, 2)}, byID[3].rows)
	assert.True(t, byID[3].clock)

	require.Len(t, tl.panels, 2, "a witness gets a zoomed panel")
	z := tl.panels[1]
	assert.True(t, z.zoom)
	assert.LessOrEqual(t, z.lo, time.Duration(0), "the zoom shows client 0's acquire")
	assert.GreaterOrEqual(t, z.hi, msd(220), "and the whole overlap")
	assert.Less(t, z.hi, msd(1000), "but not the whole run")

	var svg bytes.Buffer
	require.NoError(t, tl.writeTo(&svg, "svg"))
	s := svg.String()
	for _, want := range []string{">node 2<", ">node 4<", "The witness zoomed: client 0 / client 1", "F3 clock +2s",
		">c1-1<", "majority not reached 1/5", "F1 partition A [c0 n0 n1 n2] | B [c1 n2 n3 n4]", "F2 pause-client 1",
		"failed acquire attempt, with its reason", "network fault on this endpoint"} {
		assert.True(t, strings.Contains(s, want), "the SVG lacks %q", want)
	}
}

func TestWriteRunTellsFailedAcquiresAndExplainsCheckHTML(t *testing.T) {
	in := newRun(t, "redlock-node-clock-jump", "redlock", clockJump(), 2, "unsafe")
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))

	sum, err := os.ReadFile(filepath.Join(dir, FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(sum), "- failed acquires by reason: majority not reached 1/5 × 1\n")

	page, err := os.ReadFile(filepath.Join(dir, FileCheck))
	require.NoError(t, err)
	p := string(page)
	for _, want := range []string{"<title>redlock-node-clock-jump — redlock — verdict unsafe</title>",
		"<b>Verdict: unsafe</b>", "exclusion unsafe", "How to read this page",
		`href="summary.md"`, `href="timeline.png"`, `"Tag":"faults: client 0"`, `"Tag":"faults: node 2"`, `"Tag":"faults: network"`} {
		assert.Contains(t, p, want)
	}
	assert.False(t, strings.Contains(p, "fence 0"), "no fence label on an unfenced lease")

	h, err := os.ReadFile(filepath.Join(dir, FileHistory))
	require.NoError(t, err)
	back, err := history.ReadJSONL(bytes.NewReader(h))
	require.NoError(t, err)
	var reasons []string
	for _, op := range back.Ops {
		if op.Kind == history.KindAcquire && op.Outcome != history.OK {
			reasons = append(reasons, op.Reason)
		}
	}
	assert.Equal(t, []string{history.ReasonNoMajority}, reasons)
}

// A notified waiter's waits for the unlock message are drawn on its row
// and explained in the legend; a run without them has neither.
func TestTimelineDrawsUnlockWaits(t *testing.T) {
	var b builder
	b.acquire(0, 0, 1, history.OK, "c0-1", 500)
	b.acquire(1, 2, 3, history.Fail, "", 0)
	b.acquire(1, 4, 5, history.Fail, "", 0)
	b.release(0, 100, history.OK, "c0-1")
	b.acquire(1, 101, 102, history.OK, "c1-1", 600)
	b.ops[len(b.ops)-1].WaitFrom = msd(6)
	b.release(1, 200, history.OK, "c1-1")
	b.probe(210, 211, history.OK)
	const label = "waiting for the unlock message (wait: notify)"

	tl, err := newTimeline(context.Background(), newRun(t, "notify-contention", "setpx", history.History{Ops: b.ops}, 2, "safe"))
	require.NoError(t, err)
	assert.Equal(t, []span{{start: msd(6), end: msd(101)}}, tl.lanes.byClient[1].waits)
	assert.Empty(t, tl.lanes.byClient[0].waits)
	var svg bytes.Buffer
	require.NoError(t, tl.writeTo(&svg, "svg"))
	assert.Contains(t, svg.String(), label)

	b.ops[4].WaitFrom = 0 // polling: the same attempts, no wait recorded
	tl, err = newTimeline(context.Background(), newRun(t, "control-contention", "setpx", history.History{Ops: b.ops}, 2, "safe"))
	require.NoError(t, err)
	assert.Empty(t, tl.lanes.byClient[1].waits)
	svg.Reset()
	require.NoError(t, tl.writeTo(&svg, "svg"))
	assert.NotContains(t, svg.String(), label)
}
