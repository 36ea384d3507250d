package explore

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

func TestCoveredByAnEarlierShrunkCause(t *testing.T) {
	fi := &finisher{causes: map[int]Finding{
		1: {Check: "claim", Verdict: vocab.Unsafe, Kinds: []string{"kill-node"}},
		3: {Check: "exclusion", Verdict: vocab.Unsafe, Kinds: []string{"delay", "pause-client"}},
		4: {Check: "liveness", Verdict: vocab.Deadlock}, // no witness, no kinds: covers nothing
	}}
	for _, tc := range []struct {
		f    Finding
		want int
	}{
		{Finding{Check: "claim", Verdict: vocab.Unsafe, Kinds: []string{"crash-client", "kill-node"}}, 1},
		{Finding{Check: "claim", Verdict: vocab.Unsafe, Kinds: []string{"crash-client"}}, 0},
		{Finding{Check: "exclusion", Verdict: vocab.Unsafe, Kinds: []string{"kill-node"}}, 0}, // another check
		{Finding{Check: "exclusion", Verdict: vocab.Unsafe, Kinds: []string{"delay"}}, 0},     // only part of the cause
		{Finding{Check: "exclusion", Verdict: vocab.Unsafe, Kinds: []string{"delay", "drop", "pause-client"}}, 3},
		{Finding{Check: "liveness", Verdict: vocab.Deadlock}, 0},
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
	nothing := classify(checker.Result{Verdict: vocab.Unknown, TestedNothing: true, Reason: "no lease was granted"}, nil)
	if nothing.Violation() || !nothing.NotPlayed {
		t.Errorf("tested nothing: violation %v, not played %v; want a not-played run", nothing.Violation(), nothing.NotPlayed)
	}
	undecided := classify(checker.Result{Verdict: vocab.Unknown, Reason: "could not decide: exclusion",
		Checks: []checker.CheckResult{{Name: vocab.CheckExclusion, Verdict: vocab.Unknown}}}, nil)
	if !undecided.Violation() || undecided.Check != vocab.CheckExclusion {
		t.Errorf("undecided exclusion: %+v, want an unknown exclusion violation", undecided)
	}
}

// A run reproduces a target when the target's check failed with its
// verdict, whichever check the run's own finding is named after.
func TestSameIsTheTargetsCheck(t *testing.T) {
	excl := Finding{Check: vocab.CheckExclusion, Verdict: vocab.Unsafe}
	both := outcome{
		Finding: Finding{Check: vocab.CheckClaim, Verdict: vocab.Unsafe},
		checks:  map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Unsafe, vocab.CheckLiveness: vocab.Safe},
	}
	if !both.Same(excl) {
		t.Error("exclusion failed beside the claim: the exclusion failure is reproduced")
	}
	onlyClaim := both
	onlyClaim.checks = map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Safe, vocab.CheckClaim: vocab.Unsafe}
	if onlyClaim.Same(excl) {
		t.Error("exclusion held: not reproduced")
	}
	notPlayed := outcome{Finding: Finding{NotPlayed: true}, checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unknown}}
	if notPlayed.Same(Finding{Check: vocab.CheckExclusion, Verdict: vocab.Unknown}) {
		t.Error("a run that tested nothing reproduces nothing")
	}
}

// A time becomes, besides the last point before it, every loop point at
// its last visit before it, latest first.
func TestEveryPointBefore(t *testing.T) {
	ms := time.Millisecond
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Call: 10 * ms, Return: 11 * ms, Outcome: history.OK},
		{Kind: history.KindCheck, Client: 0, Call: 11 * ms, Return: 12 * ms, Outcome: history.OK},
		{Kind: history.KindEnter, Client: 0, Call: 12 * ms, Return: 13 * ms, Outcome: history.OK},
		{Kind: history.KindExit, Client: 0, Call: 30 * ms, Return: 31 * ms, Outcome: history.OK},
		{Kind: history.KindAcquire, Client: 0, Call: 40 * ms, Return: 41 * ms, Outcome: history.OK},
		{Kind: history.KindEnter, Client: 0, Call: 42 * ms, Return: 43 * ms, Outcome: history.OK},
	}}
	var got []string
	for _, p := range everyPointBefore(h, 42*ms, 1) {
		got = append(got, fmt.Sprintf("%s#%d", p.Point, *p.Nth))
	}
	want := []string{"after-acquire#2", "before-acquire#2", "before-exit#1", "after-enter#1", "after-check#1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
