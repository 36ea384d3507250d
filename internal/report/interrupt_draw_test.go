package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// countdownCtx is a context whose Err is nil for its first n calls and
// context.Canceled after: it ends the drawing at a chosen step. calls
// counts every call.
type countdownCtx struct {
	context.Context
	n, calls atomic.Int64
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// denseRun is a run with n faults on two clients' rows, a fault every
// 100 µs: the picture of a dense random nemesis.
func denseRun(t *testing.T, n int) Run {
	h := gcPause()
	for i := range n {
		at := time.Duration(i) * 100 * time.Microsecond
		h.Ops = append(h.Ops, history.Op{Kind: history.KindFault, Client: history.NoClient, Call: at, Return: at + 50*time.Microsecond,
			Outcome: history.OK, FaultID: 100 + i, Fault: fmt.Sprintf("pause-client %d (random #%d)", i%2, i),
			Target: &history.Target{Kind: "pause-client", Clients: []int{i % 2}}})
	}
	return newRun(t, "dense", "redlock", h, 3, "")
}

// TestDrawingStopsWhereTheContextEnds: laying out and drawing a dense
// timeline ask the run's context all along (per fault, per row, per
// label), so that wherever it ends, the drawing stops within a few steps
// and nothing is written: no PNG or SVG cut midway.
func TestDrawingStopsWhereTheContextEnds(t *testing.T) {
	in := denseRun(t, 5000)
	whole := &countdownCtx{Context: context.Background()}
	whole.n.Store(1 << 40)
	tl, err := newTimeline(whole, in)
	require.NoError(t, err)
	var png bytes.Buffer
	require.NoError(t, tl.writeTo(&png, "png"))
	require.NotZero(t, png.Len())
	steps := whole.calls.Load()
	require.Greater(t, steps, int64(5000), "the context is asked per fault, not once per picture")

	for _, frac := range []float64{0.05, 0.3, 0.6, 0.95} {
		for _, format := range []string{"png", "svg"} {
			ctx := &countdownCtx{Context: context.Background()}
			ctx.n.Store(int64(frac * float64(steps)))
			var buf bytes.Buffer
			tl, err := newTimeline(ctx, in)
			if err == nil {
				err = tl.writeTo(&buf, format)
			}
			require.ErrorIs(t, err, context.Canceled, "%s cut at %.0f%%", format, frac*100)
			assert.Zero(t, buf.Len(), "%s cut at %.0f%%: nothing written", format, frac*100)
			after := ctx.calls.Load() - int64(frac*float64(steps))
			assert.Less(t, after, int64(50), "%s cut at %.0f%%: stopped within a few steps, not %d", format, frac*100, after)
		}
	}
}

// TestReportOfAnInterruptedRunHasNoPictures: a report written once the
// run's context has ended (an interrupted run) draws no picture and is
// written whole otherwise, marked incomplete.
func TestReportOfAnInterruptedRunHasNoPictures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	drawn := false
	defer OnDrawStart(func() { drawn = true })()
	dir := filepath.Join(t.TempDir(), "run")
	in := gcPauseRun(t)
	in.Incomplete = true
	err := WriteRun(ctx, dir, in)
	require.ErrorIs(t, err, ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, drawn, "no drawing started")
	assertNoPictures(t, dir)
	v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)
	assert.True(t, v.Incomplete)
	summary, err := os.ReadFile(filepath.Join(dir, FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "describes a partial history")
	assert.Contains(t, string(summary), "it was interrupted before they were drawn")
}

// assertNoPictures: dir is a written report with none of the pictures.
func assertNoPictures(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{FileScenario, FileHistory, FileVerdict, FileSummary} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	for _, f := range []string{FileCheck, FileSVG, FilePNG} {
		assert.NoFileExists(t, filepath.Join(dir, f))
	}
	left, err := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary directory left")
}
