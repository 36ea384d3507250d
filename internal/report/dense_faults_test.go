package report

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// A run with thousands of faults (a dense random nemesis) is drawn at the
// cost of its picture: each panel asks for labels at most once per row,
// kind and label column, not once per fault, so the labeler's work does
// not grow with the square of the faults.
func TestDenseFaultsAreDrawnByPixel(t *testing.T) {
	h := gcPause()
	const n = 20000
	for i := range n {
		at := time.Duration(i) * 100 * time.Microsecond
		h.Ops = append(h.Ops, history.Op{Kind: history.KindFault, Client: history.NoClient, Call: at, Return: at + 50*time.Microsecond,
			Outcome: history.OK, FaultID: 100 + i, Fault: fmt.Sprintf("pause-client %d (random #%d)", i%2, i),
			Target: &history.Target{Kind: "pause-client", Clients: []int{i % 2}}})
	}
	in := newRun(t, "dense", "redlock", h, 3, "")
	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)
	require.NoError(t, tl.writeTo(io.Discard, "svg"))
	for _, p := range tl.panels {
		columns := int(px(figWidthPx)/faultLabelColumn) + 1
		bound := (len(tl.rows) + 1) * columns * 3 // rows and the strip, three kinds of mark
		assert.Less(t, len(p.labels.reqs), bound, "label requests bounded by the picture, not by %d faults", n)
		// one kind of fault here: at most a mark per row and pixel
		assert.Less(t, len(p.labels.lines), (len(tl.rows)+1)*figWidthPx, "reference lines bounded by the picture's pixels")
	}
	// A panel with few faults is not thinned: every fault asks for its label.
	few := gcPauseRun(t)
	tl, err = newTimeline(context.Background(), few)
	require.NoError(t, err)
	require.NoError(t, tl.writeTo(io.Discard, "svg"))
	assert.NotEmpty(t, tl.panels[0].labels.reqs)
}
