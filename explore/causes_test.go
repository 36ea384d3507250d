package explore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two shrunk scenarios that differ in a client's index, a visit's count
// or a length within its class of the lease are one cause; a length on
// the other side of the lease, or another point, is another.
func TestCauseOfClassesTheFaults(t *testing.T) {
	cfg := Config{Algorithm: "setpx"}.withDefaults()
	target := Finding{Check: "claim", Verdict: "unsafe"}
	cause := func(faults string) string {
		return causeOf(mustParse(t, "name: c\nalgorithm: setpx\noptions: {ttl: 200ms}\nfaults:\n"+faults), target, cfg)
	}
	a := cause("  - {kind: pause-client, client: 0, when: {point: after-enter, nth: 3}, for: 300ms}\n  - {kind: kill-node, node: 0, at: 50ms, restart_after: 0s, keep_data: false}\n")
	b := cause("  - {kind: kill-node, node: 0, at: 900ms, restart_after: 10ms}\n  - {kind: pause-client, client: 1, when: {point: after-enter}, for: 900ms}\n")
	assert.Equal(t, "kill-node at a time, restarted empty + pause-client at after-enter, for > ttl", a)
	assert.Equal(t, a, b, "indexes, visits, lengths within a class and the order do not matter")
	assert.NotEqual(t, a, cause("  - {kind: pause-client, client: 0, when: {point: after-enter}, for: 100ms}\n  - {kind: kill-node, node: 0, at: 50ms, restart_after: 0s}\n"), "< ttl is another cause")
	assert.NotEqual(t, a, cause("  - {kind: pause-client, client: 0, when: {point: before-exit}, for: 300ms}\n  - {kind: kill-node, node: 0, at: 50ms, restart_after: 0s}\n"), "another point is another cause")
	assert.Equal(t, "clock-jump-client at after-acquire, for < ttl, back < ttl", cause("  - {kind: clock-jump-client, client: 0, by: -50ms, for: 20ms, when: {point: after-acquire}}\n"))
	assert.Contains(t, cause(""), "no fault")
}

// Violations group by check, verdict and cause: the shrunk one with the
// best reproduction stands for the cause, covered ones count; those
// without a cause are counted by why.
func TestCausesOfGroups(t *testing.T) {
	vs := []Violation{
		{Check: "claim", Verdict: "unsafe", Cause: "x", FaultsAfter: 2, Hits: 5, Scenario: "a.yaml", Reproduced: Reproduced{Virtual: "8/10"}},
		{Check: "claim", Verdict: "unsafe", Cause: "x", CoveredBy: 1, Hits: 7},
		{Check: "claim", Verdict: "unsafe", Cause: "x", FaultsAfter: 1, Hits: 1, Scenario: "c.yaml", Reproduced: Reproduced{Virtual: "10/10"}},
		{Check: "exclusion", Verdict: "unsafe", Cause: "x", FaultsAfter: 1, Hits: 50, Scenario: "d.yaml", Reproduced: Reproduced{Virtual: "10/10"}},
		{Check: "claim", Verdict: "unsafe", Unshrunk: UnshrunkBudget, Hits: 3},
		{Check: "claim", Verdict: "unsafe", Unshrunk: UnshrunkBudget, Hits: 3},
		{Check: "liveness", Verdict: "deadlock", Unshrunk: UnshrunkRule, Hits: 3},
	}
	cs := causesOf(vs)
	require.Len(t, cs, 2)
	assert.Equal(t, []int{1, 2, 3}, cs[0].Violations, "the most signatures first")
	assert.Equal(t, 1, cs[0].Covered)
	assert.Equal(t, 13, cs[0].Hits)
	assert.Equal(t, 3, cs[0].Shown, "the best reproduced stands for it")
	assert.Equal(t, "c.yaml", cs[0].Scenario)
	assert.Equal(t, 1, cs[0].FaultCount)
	assert.Equal(t, "exclusion", cs[1].Check)

	r := &Report{Algorithm: "setpx", Violations: vs, Causes: cs}
	lines := r.Lines()
	assert.Len(t, lines, 5, "%s", strings.Join(lines, "\n"))
	assert.Contains(t, lines, "+2 signatures covered by these causes", "the cause's others, shrunk to it or covered")
	assert.Contains(t, lines, "+2 not shrunk (budget)")
	assert.Contains(t, lines, "+1 not shrunk: did not fail again as a scenario")
	md := r.Markdown()
	assert.Less(t, strings.Index(md, "## Causes"), strings.Index(md, "## Signatures"))
	assert.Contains(t, md, "| 1. x | claim | unsafe | 1 | 3 (#1, #2, #3) | 13 |")
	assert.Contains(t, md, "| covered by #1 |")
}
