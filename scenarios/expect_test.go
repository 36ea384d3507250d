package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/checker"
)

// TestExpectationMisses is the one comparison of an expectation with a
// result, as typed values.
func TestExpectationMisses(t *testing.T) {
	got := map[string]checker.Verdict{
		"exclusion": checker.Unsafe, "claim": checker.Safe, "fencing": checker.Skipped, "liveness": checker.Safe,
	}
	safe := map[string]checker.Verdict{"exclusion": checker.Safe}
	nothing := Expectation{}
	for _, tc := range []struct {
		verdict checker.Verdict
		e       Expectation
		checks  map[string]checker.Verdict
		want    []string
	}{
		{checker.Safe, nothing, safe, nil},
		{checker.Unsafe, nothing, got, []string{MissedVerdict}},
		{checker.Unknown, nothing, got, []string{MissedVerdict}},
		{checker.Unknown, Expectation{Verdict: Safe}, got, []string{MissedVerdict}},
		{checker.Deadlock, nothing, got, []string{MissedVerdict}},
		{checker.Unsafe, Expectation{Verdict: Unsafe}, got, nil},
		{checker.Unsafe, Expectation{Verdict: Safe}, got, []string{MissedVerdict}},
		{checker.Safe, Expectation{Verdict: Unsafe}, safe, []string{MissedVerdict}},
		{checker.Unsafe, Expectation{Verdict: Any}, got, nil},
		{checker.Safe, Expectation{Verdict: Any}, safe, nil},
		{checker.Deadlock, Expectation{Verdict: Any}, got, nil},
		{checker.Unknown, Expectation{Verdict: Any}, got, []string{MissedVerdict}},
		{checker.Unknown, Expectation{Verdict: Unknown}, got, nil},
		{checker.Unsafe, Expectation{Verdict: Unsafe, Checks: map[string]Verdict{CheckExclusion: Unsafe, CheckClaim: Safe}}, got, nil},
		{checker.Unsafe, Expectation{Verdict: Unsafe, Checks: map[string]Verdict{CheckClaim: Unsafe}}, got, []string{CheckClaim}},
		{checker.Unsafe, Expectation{Verdict: Any, Checks: map[string]Verdict{CheckClaim: Unsafe}}, got, []string{CheckClaim}},
		{checker.Unsafe, Expectation{Verdict: Unsafe, Checks: map[string]Verdict{CheckFencing: Skipped}}, got, nil},
		{checker.Unsafe, Expectation{Verdict: Unsafe, Checks: map[string]Verdict{"no-such-check": Safe}}, got, []string{"no-such-check"}},
		{checker.Safe, Expectation{Verdict: Unsafe, Checks: map[string]Verdict{CheckLiveness: Deadlock, CheckClaim: Unsafe}}, got,
			[]string{MissedVerdict, CheckClaim, CheckLiveness}},
	} {
		assert.Equal(t, tc.want, tc.e.Misses(tc.verdict, tc.checks), "verdict %s, expected %v", tc.verdict, tc.e)
		assert.Equal(t, len(tc.want) == 0, tc.e.Meets(tc.verdict, tc.checks))
	}
}
