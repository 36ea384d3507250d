package review

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/vocab"
)

// Witnesses come from verdict.json, cut into short lines that say what
// summary.md's sentence says, never parsed back from summary.md.
func TestWitnessLinesFromVerdict(t *testing.T) {
	w := checker.Witness{Check: vocab.CheckExclusion, Key: "k",
		A: checker.Interval{Client: 0, Start: 10 * time.Millisecond, End: 40 * time.Millisecond},
		B: checker.Interval{Client: 1, Start: 20 * time.Millisecond, End: 50 * time.Millisecond},
		Faults: []checker.FaultWindow{
			{ID: 3, Desc: "crash-client 0 (client 0 at before-release #1)", Start: 35 * time.Millisecond, End: 90 * time.Millisecond},
			{ID: 2, Desc: "pause-client 0 (client 0 at after-check #1, for 1s)", Start: 1 * time.Millisecond, End: 15 * time.Millisecond},
			{ID: 1, Desc: "partition [c0] | [c1]", Start: 0, End: 100 * time.Millisecond},
		}}
	just := w
	just.Faults = []checker.FaultWindow{{ID: 2, Desc: "pause-client 0", Start: 0, End: 20*time.Millisecond - 20*time.Microsecond}}
	assert.Equal(t, "faults: F2 pause-client 0 (ended as the overlap began)", witnessLine("exclusion", just, false).FaultsLine())
	v := report.VerdictFile{Checks: map[string]report.Check{
		vocab.CheckExclusion: {Verdict: vocab.Unsafe, Witnesses: []checker.Witness{w, w, w, w, w}},
		vocab.CheckClaim:     {Verdict: vocab.Unsafe, Witnesses: []checker.Witness{w, w}},
		vocab.CheckFencing:   {Verdict: vocab.Safe, Witnesses: []checker.Witness{w}},
	}}
	lines := witnessLines(v)
	require.Len(t, lines, 7, "every witness of a failed check, none of a safe one")
	l := lines[0]
	assert.Equal(t, report.WitnessWords(w, false), l.Words)
	assert.Equal(t, "k", l.Key)
	assert.Equal(t, "client 1 entered at 20 ms while client 0 was inside (10–40 ms)", l.What)
	assert.Equal(t, "overlap 20–40 ms (20 ms)", l.Overlap)
	assert.Equal(t, "faults: F1 partition [c0] | [c1] (throughout) · F2 pause-client 0 (ended 5 ms before) · F3 crash-client 0 (overlapping)", l.FaultsLine())
	// Everything the sentence says is in the lines.
	for _, part := range []string{"20 ms", "10 ms", "40 ms", "20–40 ms", "5 ms after fault 2 pause-client 0", "fault 1 partition", "fault 3 crash-client 0"} {
		assert.Contains(t, l.Words, part)
	}

	f := Finding{Witnesses: lines}
	shown, folded := f.Shown(), f.Folded()
	require.Len(t, shown, shownWitnesses)
	assert.Len(t, folded, 3)
	var checks []string
	for _, s := range shown {
		checks = append(checks, s.Check)
	}
	assert.Equal(t, []string{"exclusion", "exclusion", "claim", "claim"}, checks, "each failed check is shown, in check order")
	assert.Len(t, f.FaultsInFull(), 3)
	assert.Equal(t, "F1", f.FaultsInFull()[0].Label())
	summary := f.Summary()
	require.Len(t, summary, shownWitnesses+1)
	assert.Equal(t, fmt.Sprintf("… 3 more witness(es) in the run's %s", report.FileVerdict), summary[shownWitnesses])
}
