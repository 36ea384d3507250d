package checker

import (
	"testing"

	"github.com/locksim/locksim/sim"
)

// A probe refused until its bound is a deadlock; one that never got a
// definite answer is unknown, never a deadlock the lock did not cause and
// never a pass.
func TestLivenessNeverGuesses(t *testing.T) {
	lease := sim.Op{Kind: sim.KindAcquire, Client: 0, Key: "k", Call: 0, Return: ms, Outcome: sim.OK, Token: "t", Deadline: 100 * ms}
	for _, tc := range []struct {
		probe   sim.Outcome
		want    Verdict
		overall Verdict
	}{
		{sim.OK, Safe, Safe},
		{sim.Fail, Deadlock, Deadlock},
		{sim.Unknown, Unknown, Unknown},
	} {
		h := sim.History{Ops: []sim.Op{lease,
			{Kind: sim.KindProbe, Client: sim.NoClient, Key: "k", Call: 200 * ms, Return: 300 * ms, Outcome: tc.probe}}}
		r := Check(h, Config{})
		if live := r.Check(NameLiveness); live.Verdict != tc.want || r.Verdict != tc.overall {
			t.Errorf("probe %s: liveness %s (%s), overall %s; want %s, %s", tc.probe, live.Verdict, live.Detail, r.Verdict, tc.want, tc.overall)
		}
	}
}
