package report

import (
	"context"
	"io"
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lease that ran out, another client's whole hold, then an ok extend of
// the first lease (a refresh that sets a lapsed key anew): the chart marks
// the extends, draws the lapse the extend vouched for, and its witness
// label says why the claims overlap though the sections did not.
func TestTimelineDrawsAVouchedLapse(t *testing.T) {
	var b builder
	b.acquire(0, 0, 1, history.OK, "c0-1", 300)
	b.res(history.KindEnter, 0, 3, "c0-1", 0, history.OK)
	b.res(history.KindExit, 0, 10, "c0-1", 0, history.OK)
	b.acquire(1, 350, 351, history.OK, "c1-1", 651)
	b.res(history.KindEnter, 1, 370, "c1-1", 0, history.OK)
	b.res(history.KindExit, 1, 390, "c1-1", 0, history.OK)
	b.release(1, 391, history.OK, "c1-1")
	b.ops = append(b.ops, history.Op{Kind: history.KindExtend, Client: 0, Key: "lock", Call: msd(420), Return: msd(421),
		Outcome: history.OK, Token: "c0-1", Deadline: msd(721)})
	b.ops = append(b.ops, history.Op{Kind: history.KindExtend, Client: 1, Key: "lock", Call: msd(430), Return: msd(431),
		Outcome: history.Fail, Token: "c1-1"})
	b.res(history.KindEnter, 0, 430, "c0-1", 0, history.OK)
	b.res(history.KindExit, 0, 440, "c0-1", 0, history.OK)
	b.release(0, 441, history.OK, "c0-1")
	b.probe(500, 501, history.OK)

	tl, err := newTimeline(context.Background(), newRun(t, "vouched", "setpx", history.History{Ops: b.ops}, 2, "unsafe"))
	require.NoError(t, err)
	require.NoError(t, tl.writeTo(io.Discard, "svg"))

	lapses := tl.lanes.byClient[0].lapses
	require.Len(t, lapses, 1)
	assert.Equal(t, msd(300), lapses[0].Start)
	assert.Equal(t, msd(421), lapses[0].End)
	assert.Equal(t, []extendMark{{at: msd(421), ok: true}}, tl.lanes.byClient[0].extends)
	assert.Equal(t, []extendMark{{at: msd(431), ok: false}}, tl.lanes.byClient[1].extends)

	var legend []string
	for _, it := range tl.legend {
		legend = append(legend, it.label)
	}
	assert.Contains(t, legend, "extend (renewal) came back ok")
	assert.Contains(t, legend, "extend refused or of unknown outcome")
	assert.Contains(t, legend, "lease ran out, then an ok extend said it held: the claim counts it held")
	assert.Contains(t, tl.panels[0].labels.texts,
		"witness 1: overlap client 0 / client 1 (claim): client 0's lease had run out, its extend at 421 ms said it held")
}
