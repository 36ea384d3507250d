package explore

import (
	"testing"

	"github.com/locksim/locksim/checker"
)

func TestCoveredByAnEarlierShrunkCause(t *testing.T) {
	fi := &finisher{causes: map[int]Finding{
		1: {Check: "claim", Verdict: checker.Unsafe, Kinds: []string{"kill-node"}},
		3: {Check: "exclusion", Verdict: checker.Unsafe, Kinds: []string{"delay", "pause-client"}},
		4: {Check: "liveness", Verdict: checker.Deadlock}, // no witness, no kinds: covers nothing
	}}
	for _, tc := range []struct {
		f    Finding
		want int
	}{
		{Finding{Check: "claim", Verdict: checker.Unsafe, Kinds: []string{"crash-client", "kill-node"}}, 1},
		{Finding{Check: "claim", Verdict: checker.Unsafe, Kinds: []string{"crash-client"}}, 0},
		{Finding{Check: "exclusion", Verdict: checker.Unsafe, Kinds: []string{"kill-node"}}, 0}, // another check
		{Finding{Check: "exclusion", Verdict: checker.Unsafe, Kinds: []string{"delay"}}, 0},     // only part of the cause
		{Finding{Check: "exclusion", Verdict: checker.Unsafe, Kinds: []string{"delay", "drop", "pause-client"}}, 3},
		{Finding{Check: "liveness", Verdict: checker.Deadlock}, 0},
	} {
		if got := fi.coveredBy(tc.f); got != tc.want {
			t.Errorf("%s: covered by %d, want %d", tc.f.Signature(), got, tc.want)
		}
	}
}

// A run that tested nothing (no lease granted) is no violation: it is
// counted as not played; an unknown verdict of a check that could not
// decide is one.
func TestTestedNothingIsNotPlayedNotAViolation(t *testing.T) {
	nothing := classify(checker.Result{Verdict: checker.Unknown, TestedNothing: true, Reason: "no lease was granted"}, nil)
	if nothing.Violation() || !nothing.NotPlayed {
		t.Errorf("tested nothing: violation %v, not played %v; want a not-played run", nothing.Violation(), nothing.NotPlayed)
	}
	undecided := classify(checker.Result{Verdict: checker.Unknown, Reason: "could not decide: exclusion",
		Checks: []checker.CheckResult{{Name: checker.NameExclusion, Verdict: checker.Unknown}}}, nil)
	if !undecided.Violation() || undecided.Check != checker.NameExclusion {
		t.Errorf("undecided exclusion: %+v, want an unknown exclusion violation", undecided)
	}
}

// A run reproduces a target when the target's check failed with its
// verdict, whichever check the run's own finding is named after.
func TestSameIsTheTargetsCheck(t *testing.T) {
	excl := Finding{Check: checker.NameExclusion, Verdict: checker.Unsafe}
	both := outcome{
		Finding: Finding{Check: checker.NameClaim, Verdict: checker.Unsafe},
		checks:  map[string]checker.Verdict{checker.NameExclusion: checker.Unsafe, checker.NameClaim: checker.Unsafe, checker.NameLiveness: checker.Safe},
	}
	if !both.Same(excl) {
		t.Error("exclusion failed beside the claim: the exclusion failure is reproduced")
	}
	onlyClaim := both
	onlyClaim.checks = map[string]checker.Verdict{checker.NameExclusion: checker.Safe, checker.NameClaim: checker.Unsafe}
	if onlyClaim.Same(excl) {
		t.Error("exclusion held: not reproduced")
	}
	notPlayed := outcome{Finding: Finding{NotPlayed: true}, checks: map[string]checker.Verdict{checker.NameExclusion: checker.Unknown}}
	if notPlayed.Same(Finding{Check: checker.NameExclusion, Verdict: checker.Unknown}) {
		t.Error("a run that tested nothing reproduces nothing")
	}
}
