package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/vocab"
)

// The one-line result spells out a few warnings and counts the rest: a
// dense random nemesis leaves hundreds, and the line must stay a line a
// person reads.
func TestRunLineCountsManyWarnings(t *testing.T) {
	o := run.Outcome{Scenario: "dense", Algorithm: "setpx", Verdict: vocab.Safe, AsExpected: true, Expected: "safe", Dir: "/r"}
	for i := range 300 {
		o.Warnings = append(o.Warnings, fmt.Sprintf("no acquire succeeded while fault %d random #%d was on (1 attempt)", i+1, i))
	}
	var b bytes.Buffer
	printOutcome(&b, o)
	line := b.String()
	assert.Equal(t, 1, strings.Count(line, "\n"))
	assert.Equal(t, runLineWarnings+1, strings.Count(line, "⚠"))
	assert.Contains(t, line, "⚠ +297 more warnings in summary.md")

	o.Warnings = o.Warnings[:runLineWarnings+1]
	b.Reset()
	printOutcome(&b, o)
	assert.Equal(t, runLineWarnings+1, strings.Count(b.String(), "⚠"), "one more than the cap is shown, not counted")
	assert.NotContains(t, b.String(), "more warnings")
}
