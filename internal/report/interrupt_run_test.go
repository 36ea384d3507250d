package report_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// TestInterruptWhileDrawingADenseRun: a run under a dense random nemesis
// (a fault every other millisecond for 20 s), interrupted as its report
// starts on the pictures, returns promptly as an interrupted run: its
// directory holds the whole history, verdict.json and summary.md, marked
// incomplete, and no picture, none cut midway; latest does not move.
func TestInterruptWhileDrawingADenseRun(t *testing.T) {
	s, err := scenarios.Parse("dense.yaml", []byte("name: dense\nalgorithm: setpx\nclients: 3\nduration: 20s\n"+
		"faults:\n  - {kind: random, interval: 1ms, at: 0s}\n"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(vtime.NewContext(context.Background(), vtime.ForTest(t)))
	defer cancel()
	var cancelled time.Time
	defer report.OnDrawStart(func() {
		cancelled = time.Now()
		cancel()
	})()
	out := t.TempDir()
	o, err := run.Execute(ctx, s, "setpx", run.Options{Out: out})
	require.False(t, cancelled.IsZero(), "the report started on its pictures")
	// Generous for a loaded machine: the rest of the report is a few
	// files; the pictures of such a run take seconds.
	assert.Less(t, time.Since(cancelled), 2*time.Second, "returned promptly after the interrupt")
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "interrupted while its report was drawn")
	assert.True(t, o.Incomplete)
	assert.False(t, o.AsExpected)
	require.NotEmpty(t, o.Dir)

	for _, f := range []string{report.FileScenario, report.FileHistory, report.FileVerdict, report.FileSummary} {
		assert.FileExists(t, filepath.Join(o.Dir, f))
	}
	for _, f := range []string{report.FileCheck, report.FileSVG, report.FilePNG} {
		assert.NoFileExists(t, filepath.Join(o.Dir, f))
	}
	f, err := os.Open(filepath.Join(o.Dir, report.FileHistory))
	require.NoError(t, err)
	defer f.Close()
	h, err := history.ReadJSONL(f)
	require.NoError(t, err)
	faults := 0
	for _, op := range h.Ops {
		if op.Kind == history.KindFault {
			faults++
		}
	}
	assert.Greater(t, faults, 1000, "a dense schedule, kept whole")
	v, err := report.ReadVerdict(filepath.Join(o.Dir, report.FileVerdict))
	require.NoError(t, err)
	assert.True(t, v.Incomplete)
	assert.False(t, v.AsExpected)
	summary, err := os.ReadFile(filepath.Join(o.Dir, report.FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "interrupted while its report was drawn: the history is whole")
	assert.NoFileExists(t, filepath.Join(filepath.Dir(o.Dir), report.LatestLink))
	left, err := filepath.Glob(filepath.Join(filepath.Dir(o.Dir), ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary directory left")
}
