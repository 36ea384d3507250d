package report

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/locksim/locksim/history"
)

// sentinelFailover is a Sentinel failover as redis-server records it: the
// failover fault kills the master while client 0 holds the lock; two
// sentinels call it down (+sdown), a quorum agrees (+odown), one is
// elected, the replica is promoted (+switch-master) and client 1 acquires
// on it.
func sentinelFailover() history.History {
	var b builder
	b.acquire(0, 0, 2, history.OK, "c0-1", 8000)
	b.res(history.KindEnter, 0, 5, "c0-1", 0, history.OK)
	b.fault(3, "failover 0 (client 0 at after-enter #1)", 5.7, 3000)
	b.ops[len(b.ops)-1].Target = &history.Target{Kind: "failover", Nodes: []int{0}}
	ev := func(at float64, src, event, detail string) {
		b.ops = append(b.ops, history.Op{Kind: history.KindSentinel, Client: history.NoClient, Call: msd(at), Return: msd(at),
			Outcome: history.OK, Event: event, Detail: detail, Source: src})
	}
	const m = "master locksim-n0 127.0.0.1 45879"
	ev(1536.8, "s1", "+sdown", m)
	ev(1594.2, "s2", "+sdown", m)
	ev(1673.8, "s0", "+odown", m+" #quorum 2/2")
	ev(1673.9, "s0", "+try-failover", m)
	ev(2806.8, "s0", "+switch-master", "locksim-n0 127.0.0.1 45879 127.0.0.1 39277")
	for i := range 3 {
		at := 2816 + 40*float64(i)
		b.acquire(1, at, at+1, history.OK, fmt.Sprintf("c1-%d", i), at+8000)
		b.res(history.KindEnter, 1, at+2, fmt.Sprintf("c1-%d", i), 0, history.OK)
		b.res(history.KindExit, 1, at+20, fmt.Sprintf("c1-%d", i), 0, history.OK)
		b.release(1, at+21, history.OK, fmt.Sprintf("c1-%d", i))
	}
	b.probe(3010, 3011, history.OK)
	return history.History{Ops: b.ops}
}

func sentinelRun(t *testing.T) Run {
	in := newRun(t, "failover-async-replication", "setpx", sentinelFailover(), 2, "unsafe")
	in.Setup.Backend, in.Setup.Nodes, in.Setup.Replicas = "redis", 1, 1
	in.Setup.Failover = &history.FailoverSetup{Mode: history.FailoverSentinel, Product: "Redis", SentinelBinary: "redis-sentinel",
		Sentinels: 3, Quorum: 2, DownAfter: history.Duration(1500 * time.Millisecond), FailoverTimeout: history.Duration(2 * time.Second), ParallelSyncs: 1}
	in.Setup.Duration = history.Duration(3 * time.Second)
	return in
}

// The failover's phases are drawn at the instants summary.md reports, the
// dead master is down from the fault that killed it, and each event is
// named beside its own line (never past the next phase).
func TestTimelineSentinelPhasesAtSummaryTimes(t *testing.T) {
	in := sentinelRun(t)
	sum := failoverSection(in.Setup, in.History)
	require.Contains(t, sum, "master down at 5.7 ms by fault 3")

	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)
	require.NoError(t, tl.writeTo(io.Discard, "svg"))

	full := tl.panels[0]
	var drawn []string
	for _, e := range full.events {
		drawn = append(drawn, e.event)
	}
	assert.Equal(t, []string{"+sdown", "+odown", "+switch-master"}, drawn, "an event line each")
	from := tl.failEvents[0]
	assert.Equal(t, "master down (F3)", from.event)
	// every boundary drawn is the time summary.md gives, counted from the
	// same instant
	words := map[string]string{"+sdown": "+sdown after ", "+odown": "+odown after ", "+switch-master": "**+switch-master after "}
	for _, e := range full.events {
		assert.Contains(t, sum, words[e.event]+fmtMS(e.at-from.at), "%s drawn at %s", e.event, fmtMS(e.at))
	}
	assert.Equal(t, msd(1536.8), full.events[0].at)
	assert.Equal(t, msd(1673.8), full.events[1].at)
	assert.Equal(t, msd(2806.8), full.events[2].at)

	// the phases tile the failover from the kill to the switch, darker as
	// it goes
	ph := tl.failPhases
	require.Len(t, ph, 3)
	assert.Equal(t, from.at, ph[0].from, "the dead master is down from the kill")
	for i := 1; i < len(ph); i++ {
		assert.Equal(t, ph[i-1].to, ph[i].from)
		assert.Greater(t, ph[i].shade, ph[i-1].shade)
	}
	assert.Equal(t, full.events[2].at, ph[2].to, "the failover is in progress until the switch, not after it")

	// each event's name touches its line
	for _, e := range full.events {
		i := slices.Index(full.labels.texts, e.event)
		require.GreaterOrEqual(t, i, 0, "%s is named", e.event)
		box := full.labels.taken[i]
		near := func(a, b vg.Length) bool { return a-b < px(8) && b-a < px(8) }
		assert.True(t, near(box.Min.X, e.x) || near(box.Max.X, e.x), "%s is named beside its line: box %v, line at %v", e.event, box, e.x)
	}
}

// A fault that ended before the run did is not labelled "(to the end)",
// however long it lasted; one healed with the run is.
func TestFaultToTheEndOnlyWhenItLasted(t *testing.T) {
	for _, c := range []struct {
		end  float64
		want string
	}{{2700, "F1 pause-client 0 (until 2700 ms)"}, {3001, "F1 pause-client 0 (to the end)"}} {
		var b builder
		b.acquire(0, 0, 1, history.OK, "c0-1", 501)
		b.fault(1, "pause-client 0 (at 100ms, for 2.6s)", 100, c.end)
		b.ops[len(b.ops)-1].Target = &history.Target{Kind: "pause-client", Clients: []int{0}}
		b.acquire(1, 2900, 2901, history.OK, "c1-1", 3401)
		b.release(1, 2950, history.OK, "c1-1")
		b.probe(3002, 3003, history.OK)
		in := newRun(t, "long-pause", "setpx", history.History{Ops: b.ops}, 2, "")
		in.Setup.Duration = history.Duration(3 * time.Second)
		tl, err := newTimeline(context.Background(), in)
		require.NoError(t, err)
		require.NoError(t, tl.writeTo(io.Discard, "svg"))
		texts := tl.panels[0].labels.texts
		assert.Contains(t, texts, c.want)
		for _, s := range texts {
			if c.end < 3000 {
				assert.NotContains(t, s, "to the end")
			}
		}
	}
}

// The setup line counts the nodes the design used: a single-node design
// on a 5-node cluster uses one of them; a design the registry does not
// know is counted from what its acquires asked.
func TestSetupCountsTheNodesTheDesignUsed(t *testing.T) {
	h := clockJump()
	for algo, want := range map[string]string{
		"setpx":   "setpx on 1 of 5 miniredis node(s)",
		"redlock": "redlock on 5 miniredis node(s)",
	} {
		in := newRun(t, "s", algo, h, 2, "")
		assert.Contains(t, setup(in.Setup, h), want)
		tl, err := newTimeline(context.Background(), in)
		require.NoError(t, err)
		assert.Contains(t, tl.subtitle[0], want)
	}
	var b builder
	b.acquire(0, 0, 1, history.OK, "c0-1", 501)
	b.ops[0].Granted, b.ops[0].Asked = []int{0, 1}, 3
	cfg := testConfig("some-process-design", 2)
	assert.Contains(t, setup(cfg, history.History{Ops: b.ops}), "some-process-design on 3 of 5 miniredis node(s)")
	assert.Contains(t, setup(cfg, history.History{}), "some-process-design on 5 miniredis node(s)", "nothing asked: every node is counted")
}

// Many witnesses: the first is framed and numbered, the others counted in
// its label and the subtitle, not framed on top of each other.
func TestTimelineFramesTheFirstWitnessAndCountsTheRest(t *testing.T) {
	var b builder
	b.acquire(0, 0, 1, history.OK, "c0-1", 2000)
	b.res(history.KindEnter, 0, 2, "c0-1", 0, history.OK)
	for i := range 10 {
		at := 100 + 20*float64(i)
		tok := fmt.Sprintf("c1-%d", i)
		b.acquire(1, at, at+1, history.OK, tok, at+2000)
		b.res(history.KindEnter, 1, at+2, tok, 0, history.OK)
		b.res(history.KindExit, 1, at+10, tok, 0, history.OK)
		b.release(1, at+11, history.OK, tok)
	}
	b.res(history.KindExit, 0, 400, "c0-1", 0, history.OK)
	b.release(0, 401, history.OK, "c0-1")
	b.probe(500, 501, history.OK)
	tl, err := newTimeline(context.Background(), newRun(t, "pile", "setpx", history.History{Ops: b.ops}, 2, "unsafe"))
	require.NoError(t, err)
	require.Greater(t, len(tl.overlaps), 2)
	require.NoError(t, tl.writeTo(io.Discard, "svg"))
	more := fmt.Sprintf("+%d more overlaps, see summary.md", len(tl.overlaps)-1)
	for _, p := range tl.panels {
		assert.Equal(t, 1, p.frames, "one frame per panel")
		var witness []string
		for _, s := range p.labels.texts {
			if strings.HasPrefix(s, "witness") {
				witness = append(witness, s)
			}
		}
		assert.Len(t, witness, 1, "one witness label")
	}
	assert.Contains(t, tl.panels[0].labels.texts, "witness 1: overlap client 0 / client 1 (exclusion) · "+more)
	assert.Contains(t, tl.subtitle[1], more)
}
