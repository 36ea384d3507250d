package checker

import (
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// A probe refused until its bound is a deadlock; one that never got a
// definite answer is unknown, never a deadlock the lock did not cause and
// never a pass.
func TestLivenessNeverGuesses(t *testing.T) {
	lease := history.Op{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: ms, Outcome: history.OK, Token: "t", Deadline: 100 * ms}
	for _, tc := range []struct {
		probe   history.Outcome
		want    vocab.Verdict
		overall vocab.Verdict
	}{
		{history.OK, vocab.Safe, vocab.Safe},
		{history.Fail, vocab.Deadlock, vocab.Deadlock},
		{history.Unknown, vocab.Unknown, vocab.Unknown},
	} {
		h := history.History{Ops: []history.Op{lease,
			{Kind: history.KindProbe, Client: history.NoClient, Key: "k", Call: 200 * ms, Return: 300 * ms, Outcome: tc.probe}}}
		r := Check(h, Config{})
		if live := r.Check(vocab.CheckLiveness); live.Verdict != tc.want || r.Verdict != tc.overall {
			t.Errorf("probe %s: liveness %s (%s), overall %s; want %s, %s", tc.probe, live.Verdict, live.Detail, r.Verdict, tc.want, tc.overall)
		}
	}
}
