package matrix_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

func builtins(t *testing.T, names ...string) []*scenarios.Scenario {
	t.Helper()
	var out []*scenarios.Scenario
	for _, n := range names {
		s, err := scenarios.Lookup(n)
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// TestMatrixSmall runs 2 scenarios x 2 designs x 2 runs on miniredis and
// checks the directory, the counts and the three files.
func TestMatrixSmall(t *testing.T) {
	out := t.TempDir()
	var mu sync.Mutex
	var events []matrix.Progress
	m, err := matrix.Run(context.Background(), matrix.Config{
		Scenarios:  builtins(t, "crash-holder", "gc-pause-after-check"),
		Algorithms: []string{"setpx", "fenced"},
		Runs:       2,
		Out:        out,
		Progress: func(ev matrix.Progress) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		},
	})
	require.NoError(t, err)
	for _, c := range m.Differing() {
		for _, r := range c.Runs {
			sum, _ := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(r.Dir), report.FileSummary))
			t.Logf("%s × %s run seed %d: %s %v (expected %s)\n%s", c.Scenario, c.Algorithm, r.Seed, r.Verdict, r.Checks, c.Expected, sum)
		}
	}

	// The directory: out/matrix/<stamp>, complete, with latest at it and
	// nothing half-written beside it.
	root := matrix.Root(out)
	assert.Equal(t, filepath.Join(root, m.Stamp()), m.Dir)
	latest, err := os.Readlink(filepath.Join(root, report.LatestLink))
	require.NoError(t, err)
	assert.Equal(t, m.Stamp(), latest)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "left behind: %s", e.Name())
	}
	for _, f := range []string{matrix.FileMD, matrix.FileJSON, matrix.FileHTML} {
		assert.FileExists(t, filepath.Join(m.Dir, f))
	}

	// The counts agree with the runs, in matrix.json as returned.
	back, err := matrix.Read(filepath.Join(root, report.LatestLink))
	require.NoError(t, err)
	assert.Equal(t, m.Dir, back.Dir)
	assert.Equal(t, m.Totals, back.Totals)
	// Whether each pair met its expectation is the catalogue test's
	// business; here the counts must tell what the runs did.
	assert.Equal(t, 4, back.Totals.Cells)
	assert.Equal(t, back.Totals.Cells, back.Totals.Agreed+back.Totals.Differ)
	assert.Equal(t, back.Totals.Differ == 0, back.OK())
	assert.Equal(t, []string{"setpx", "fenced"}, back.Algorithms)
	require.Len(t, back.Cells, 4)
	// Kleppmann's pause is point-triggered: setpx is unsafe in every run.
	assert.Equal(t, "unsafe", back.Cell("gc-pause-after-check", "setpx").Verdict)
	differ := 0
	for _, c := range back.Cells {
		key := c.Scenario + "/" + c.Algorithm
		assert.Equal(t, matrix.CellRan, c.Status, key)
		require.Len(t, c.Runs, 2, key)
		if c.Runs[0].Verdict == c.Runs[1].Verdict {
			assert.Equal(t, string(c.Runs[0].Verdict), c.Verdict, key)
		} else {
			assert.Equal(t, matrix.Mixed, c.Verdict, key)
		}
		if !c.AsExpected {
			differ++
		}
		agreed := 0
		base := map[string]uint64{"crash-holder": 5, "gc-pause-after-check": 6}[c.Scenario]
		for i, r := range c.Runs {
			if r.AsExpected {
				agreed++
			}
			assert.Equal(t, base+uint64(i), r.Seed, "%s run %d: seed is the scenario's + run index", key, i)
			v, err := report.ReadVerdict(filepath.Join(back.Dir, filepath.FromSlash(r.Dir), report.FileVerdict))
			require.NoError(t, err, key)
			assert.Equal(t, r.Seed, v.Seed)
			assert.Equal(t, r.Verdict, v.Verdict)
			assert.Equal(t, c.Algorithm, v.Algorithm)
			assert.True(t, strings.HasPrefix(r.Dir, "runs/"), r.Dir)
			// Pictures only where a reader is sent: the run the cell
			// links to, and every run that differs; a PNG only for the
			// runs that are not safe as expected.
			_, perr := os.Stat(filepath.Join(back.Dir, filepath.FromSlash(r.Dir), report.FilePNG))
			_, serr := os.Stat(filepath.Join(back.Dir, filepath.FromSlash(r.Dir), report.FileSVG))
			_, cerr := os.Stat(filepath.Join(back.Dir, filepath.FromSlash(r.Dir), report.FileCheck))
			bad := func(v vocab.Verdict) bool { return v == vocab.Unsafe || v == vocab.Deadlock }
			drawn := i == 0 || !r.AsExpected || (bad(r.Verdict) && !bad(c.Runs[0].Verdict))
			png := drawn && !(r.AsExpected && r.Verdict == vocab.Safe)
			assert.Equal(t, png, perr == nil, "%s run %d: timeline.png drawn", key, i)
			assert.Equal(t, drawn, serr == nil, "%s run %d: timeline.svg drawn", key, i)
			assert.Equal(t, drawn, cerr == nil, "%s run %d: check.html drawn", key, i)
			if i == c.ShownRun() {
				assert.True(t, drawn, "%s: the cell's run has its pictures", key)
			}
			if bad(r.Verdict) && !slices.ContainsFunc(c.Runs[:i], func(p matrix.CellRun) bool { return bad(p.Verdict) }) {
				assert.True(t, drawn, "%s: the review's finding (the first unsafe run) has its pictures", key)
			}
		}
		assert.Equal(t, agreed, c.Agreed, key)
		assert.Equal(t, agreed == 2, c.AsExpected, key)
		// The scenario's links in the design's runs point at one of the
		// pair's runs, the one the design's last run left.
		scenarioDir := filepath.Dir(filepath.Join(back.Dir, filepath.FromSlash(c.Runs[0].Dir)))
		for _, link := range []string{report.LatestFor(c.Algorithm), report.LatestLink} {
			target, err := os.Readlink(filepath.Join(scenarioDir, link))
			require.NoError(t, err, "%s: %s", key, link)
			assert.True(t, slices.ContainsFunc(c.Runs, func(r matrix.CellRun) bool { return filepath.Base(r.Dir) == target }), "%s: %s -> %s", key, link, target)
		}
	}
	assert.Equal(t, differ, back.Totals.Differ)
	assert.Len(t, events, 1+8, "a start, then one progress event per run")
	for i, ev := range events {
		assert.Equal(t, i, ev.Done)
		assert.Equal(t, 8, ev.Total)
	}

	md, err := os.ReadFile(filepath.Join(m.Dir, matrix.FileMD))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| scenario | setpx | fenced |")
	assert.Contains(t, string(md), "| gc-pause-after-check | [**unsafe**](runs/setpx/")
	assert.Contains(t, string(md), "2/2 ✓")
	assert.Contains(t, string(md), fmt.Sprintf("%d of 4 pairs agreed", back.Totals.Agreed))

	page, err := os.ReadFile(filepath.Join(m.Dir, matrix.FileHTML))
	require.NoError(t, err)
	hrefs := wellFormed(t, string(page))
	assert.Len(t, hrefs, 4+8, "each cell's verdict and each run link")
	for _, h := range hrefs {
		p, err := url.PathUnescape(h)
		require.NoError(t, err)
		assert.False(t, filepath.IsAbs(p) || strings.Contains(p, "://"), "relative link: %s", h)
		fi, err := os.Stat(filepath.Join(m.Dir, filepath.FromSlash(p)))
		if assert.NoError(t, err, "link %s resolves", h) {
			assert.True(t, fi.IsDir(), "%s is a run directory", h)
			assert.FileExists(t, filepath.Join(m.Dir, filepath.FromSlash(p), report.FileSummary))
		}
	}
}

// wellFormed parses page as XML (the HTML is written well-formed on
// purpose: every element closed, attributes quoted) and returns every
// href.
func wellFormed(t *testing.T, page string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var hrefs []string
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "well-formed HTML")
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range e.Attr {
				if a.Name.Local == "href" {
					hrefs = append(hrefs, a.Value)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	assert.Equal(t, 0, depth)
	return hrefs
}

// TestMatrixInterrupted: a cancelled matrix is written with what
// finished, marked incomplete, every pair cut short said to be so (never a
// verdict), no partial directory left and latest not moved; the error
// says it was interrupted.
func TestMatrixInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	m, err := matrix.Run(ctx, matrix.Config{
		Scenarios: builtins(t, "crash-holder", "gc-pause-after-check"), Algorithms: []string{"setpx", "fenced"}, Out: out,
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "interrupted")
	assert.True(t, m.Incomplete)
	assert.False(t, m.OK())
	assert.Positive(t, m.Totals.Interrupted, "the cancel came before every pair finished")
	for _, c := range m.Cells {
		if c.Status == matrix.CellInterrupted {
			assert.False(t, c.AsExpected)
		}
	}
	entries, err := os.ReadDir(matrix.Root(out))
	require.NoError(t, err)
	require.Len(t, entries, 1, "the incomplete matrix, no partial directory, no latest")
	assert.Equal(t, filepath.Base(m.Dir), entries[0].Name())
}
