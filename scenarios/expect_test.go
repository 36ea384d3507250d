package scenarios

import (
	"testing"

	"github.com/locksim/locksim/vocab"
	"github.com/stretchr/testify/assert"
)

// TestExpectationMisses is the one comparison of an expectation with a
// result, as typed values.
func TestExpectationMisses(t *testing.T) {
	got := map[string]vocab.Verdict{
		"exclusion": vocab.Unsafe, "claim": vocab.Safe, "fencing": vocab.Skipped, "liveness": vocab.Safe,
	}
	safe := map[string]vocab.Verdict{"exclusion": vocab.Safe}
	nothing := Expectation{}
	for _, tc := range []struct {
		verdict vocab.Verdict
		e       Expectation
		checks  map[string]vocab.Verdict
		want    []string
	}{
		{vocab.Safe, nothing, safe, nil},
		{vocab.Unsafe, nothing, got, []string{MissedVerdict}},
		{vocab.Unknown, nothing, got, []string{MissedVerdict}},
		{vocab.Unknown, Expectation{Verdict: vocab.Safe}, got, []string{MissedVerdict}},
		{vocab.Deadlock, nothing, got, []string{MissedVerdict}},
		{vocab.Unsafe, Expectation{Verdict: vocab.Unsafe}, got, nil},
		{vocab.Unsafe, Expectation{Verdict: vocab.Safe}, got, []string{MissedVerdict}},
		{vocab.Safe, Expectation{Verdict: vocab.Unsafe}, safe, []string{MissedVerdict}},
		{vocab.Unsafe, Expectation{Verdict: vocab.Any}, got, nil},
		{vocab.Safe, Expectation{Verdict: vocab.Any}, safe, nil},
		{vocab.Deadlock, Expectation{Verdict: vocab.Any}, got, nil},
		{vocab.Unknown, Expectation{Verdict: vocab.Any}, got, []string{MissedVerdict}},
		{vocab.Unknown, Expectation{Verdict: vocab.Unknown}, got, nil},
		{vocab.Unsafe, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Safe}}, got, nil},
		{vocab.Unsafe, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckClaim: vocab.Unsafe}}, got, []string{vocab.CheckClaim}},
		{vocab.Unsafe, Expectation{Verdict: vocab.Any, Checks: map[string]vocab.Verdict{vocab.CheckClaim: vocab.Unsafe}}, got, []string{vocab.CheckClaim}},
		{vocab.Unsafe, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckFencing: vocab.Skipped}}, got, nil},
		{vocab.Unsafe, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{"no-such-check": vocab.Safe}}, got, []string{"no-such-check"}},
		{vocab.Safe, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckLiveness: vocab.Deadlock, vocab.CheckClaim: vocab.Unsafe}}, got,
			[]string{MissedVerdict, vocab.CheckClaim, vocab.CheckLiveness}},
	} {
		assert.Equal(t, tc.want, tc.e.Misses(tc.verdict, tc.checks), "verdict %s, expected %v", tc.verdict, tc.e)
		assert.Equal(t, len(tc.want) == 0, tc.e.Meets(tc.verdict, tc.checks))
	}
}
