package review

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/report"
)

// Witnesses come from verdict.json, told in summary.md's words, a few per
// check, never parsed back from summary.md.
func TestWitnessLinesFromVerdict(t *testing.T) {
	w := checker.Witness{Check: checker.NameExclusion, Key: "k",
		A: checker.Interval{Client: 0, Start: 10 * time.Millisecond, End: 40 * time.Millisecond},
		B: checker.Interval{Client: 1, Start: 20 * time.Millisecond, End: 50 * time.Millisecond}}
	v := report.Verdict{Checks: map[string]report.Check{
		checker.NameExclusion: {Verdict: checker.Unsafe, Witnesses: []checker.Witness{w, w, w, w, w}},
		checker.NameClaim:     {Verdict: checker.Safe, Witnesses: []checker.Witness{w}},
	}}
	lines := witnessLines(v)
	require.Len(t, lines, pageWitnesses+1)
	assert.Equal(t, report.WitnessWords(w, false), lines[0].Words)
	assert.Equal(t, "k", lines[0].Key)
	assert.Equal(t, WitnessLine{Check: checker.NameExclusion, Words: "… 2 more in verdict.json"}, lines[pageWitnesses])
}
