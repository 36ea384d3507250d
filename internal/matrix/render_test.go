package matrix

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleMatrix has one cell of every kind.
func sampleMatrix() Matrix {
	m := Matrix{
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), WallMS: 61234, Machine: "linux/amd64, 2 cores", Runs: 2, Parallel: 3,
		Algorithms: []string{"setpx", "fenced", "naive"},
		Scenarios: []Row{
			{Name: "a", Doc: "Scenario <a> & co.", Source: "test"},
			{Name: "b", Doc: "Scenario b.", File: "b.yaml"},
		},
		Cells: []Cell{
			{Scenario: "a", Algorithm: "setpx", Status: CellRan, Expected: "unsafe (exclusion unsafe, claim safe)", ExpectedVerdict: "unsafe", Runs: []CellRun{
				{Seed: 1, Verdict: "unsafe", AsExpected: true, Dir: "runs/setpx/x1"}, {Seed: 2, Verdict: "unsafe", AsExpected: true, Dir: "runs/setpx/x2"}}},
			{Scenario: "a", Algorithm: "fenced", Status: CellRan, Expected: "safe", ExpectedVerdict: "safe", Runs: []CellRun{
				{Seed: 1, Verdict: "safe", AsExpected: true, Dir: "runs/fenced/y1"}, {Seed: 2, Verdict: "unsafe", AsExpected: false, Dir: "runs/fenced/y2"}}},
			{Scenario: "a", Algorithm: "naive", Status: CellSkip, AsExpected: true, Expected: "skip", ExpectedVerdict: "skip", Reason: "no | TTL"},
			{Scenario: "b", Algorithm: "setpx", Status: CellRan, Expected: "any", ExpectedVerdict: "any", Runs: []CellRun{
				{Seed: 0, Verdict: "deadlock", AsExpected: true, Dir: "runs/setpx/z1"}, {Seed: 1, Verdict: "deadlock", AsExpected: true, Dir: "runs/setpx/z2"}}},
			{Scenario: "b", Algorithm: "fenced", Status: CellRan, Expected: "safe", ExpectedVerdict: "safe", Runs: []CellRun{
				{Seed: 0, Error: "nodes did not start"}, {Seed: 1, Verdict: "safe", AsExpected: true}}},
			{Scenario: "b", Algorithm: "naive", Status: CellNA, AsExpected: true, Reason: "the scenario runs only setpx, fenced"},
		},
	}
	m.summarize()
	return m
}

func TestMatrixMarkdown(t *testing.T) {
	m := sampleMatrix()
	var b bytes.Buffer
	require.NoError(t, m.WriteMarkdown(&b))
	md := b.String()
	for _, want := range []string{
		"| scenario | setpx | fenced | naive |",
		"| a | [**unsafe**](runs/setpx/x1/) 2/2 ✓ | [**mixed**](runs/fenced/y2/) 1/2 ✗ expected safe | skip [1] |",
		"| b | [**deadlock**](runs/setpx/z1/) 2/2 ✓ not asserted | error [2] | – |",
		"2 of 3 pairs agreed with their expectation in all 2 runs; 1 differ; 1 could not be run; 1 skipped; 1 do not apply",
		"- [1] skip: no \\| TTL — a × naive",
		"**a × fenced**: expected safe; run 1 (seed 1) safe ✓ [report](runs/fenced/y1/); run 2 (seed 2) unsafe ✗",
		"**b × fenced**",
		"[file: b.yaml]",
		"wall 1m1.2s",
	} {
		assert.Contains(t, md, want)
	}
}

func TestMatrixHTMLWellFormed(t *testing.T) {
	m := sampleMatrix()
	var b bytes.Buffer
	require.NoError(t, m.WriteHTML(&b))
	page := b.String()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.Entity = true, xml.HTMLEntity
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	assert.Contains(t, page, `class="v-mixed differ"`)
	assert.Contains(t, page, `class="v-deadlock loose"`)
	assert.Contains(t, page, `class="v-error"`)
	assert.Contains(t, page, "Scenario &lt;a&gt; &amp; co.")
	assert.Contains(t, page, `href="runs/fenced/y2/"`, "the mixed cell links its disagreeing run")
	assert.NotContains(t, page, "http")
}

func TestCellNoteNamesTheCheck(t *testing.T) {
	c := Cell{Status: CellRan, Verdict: "unsafe", Expected: "unsafe (exclusion safe, claim unsafe)", ExpectedVerdict: "unsafe",
		ExpectedChecks: map[string]vocab.Verdict{"exclusion": "safe", "claim": "unsafe"},
		Runs:           []CellRun{{Verdict: "unsafe", Checks: map[string]vocab.Verdict{"exclusion": "unsafe", "claim": "unsafe"}}}}
	assert.Equal(t, "expected exclusion safe", c.Note())
	c.Verdict = "safe"
	assert.Equal(t, "expected unsafe", c.Note())
	c.AsExpected, c.Expected, c.ExpectedVerdict = true, "any", vocab.Any
	assert.Equal(t, "not asserted", c.Note())
}

// Bold marks what is not safe, in both tables: a safe cell is plain, an
// unsafe, mixed or error cell bold; skip and – are no verdicts.
func TestBoldMarksNotSafe(t *testing.T) {
	m := Matrix{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Runs: 1,
		Algorithms: []string{"setpx", "fenced"}, Scenarios: []Row{{Name: "a"}},
		Cells: []Cell{
			{Scenario: "a", Algorithm: "setpx", Status: CellRan, Expected: "unsafe", ExpectedVerdict: "unsafe", Runs: []CellRun{{Seed: 1, Verdict: "unsafe", AsExpected: true, Dir: "runs/setpx/x1"}}},
			{Scenario: "a", Algorithm: "fenced", Status: CellRan, Expected: "safe", ExpectedVerdict: "safe", Runs: []CellRun{{Seed: 1, Verdict: "safe", AsExpected: true, Dir: "runs/fenced/y1"}}},
		}}
	m.summarize()
	var b bytes.Buffer
	require.NoError(t, m.WriteMarkdown(&b))
	assert.Contains(t, b.String(), "| a | [**unsafe**](runs/setpx/x1/) 1/1 ✓ | [safe](runs/fenced/y1/) 1/1 ✓ |")
	table := string(m.HTMLTable(nil, false))
	assert.Contains(t, table, `<div class="verdict notsafe">unsafe</div>`)
	assert.Contains(t, table, `<div class="verdict">safe</div>`)

	// sampleMatrix: unsafe, mixed, skip; deadlock, error, –.
	want := []bool{true, true, false, true, true, false}
	for i, c := range sampleMatrix().Cells {
		assert.Equal(t, want[i], c.NotSafe(), "%s × %s (%s)", c.Scenario, c.Algorithm, c.Label())
	}
}
