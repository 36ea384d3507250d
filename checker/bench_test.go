package checker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

const ms = time.Millisecond

// realisticHistory is what a long control-contention run looks like:
// clients contend for one key with a correct TTL lock; each round one wins
// (acquire, check, enter, exit, release, sometimes a watchdog extend) while
// others fail their attempts, a few time out, and harmless faults (delays,
// short pauses of waiting clients) come and go. With overlapAt >= 0, in
// that round the previous winner, woken from a pause, enters while the
// winner is inside: exactly one exclusion violation. The history has
// exactly n operations, in completion order.
func realisticHistory(seed uint64, n, clients, overlapAt int) history.History {
	rng := rand.New(rand.NewPCG(seed, 7))
	var ops []history.Op
	var seq int64
	res := func(kind history.Kind, c int, token string, at time.Duration) history.Op {
		seq++
		return history.Op{Kind: kind, Client: c, Key: "lock", Call: at - ms/4, Return: at + ms/4,
			Outcome: history.OK, Token: token, At: at, Seq: seq}
	}
	t := time.Duration(0)
	prev := -1
	prevToken := ""
	faultID := 0
	for round := 0; len(ops) < n+50; round++ {
		w := rng.IntN(clients)
		token := fmt.Sprintf("c%d-%d", w, round)
		for c := range clients {
			if c == w || rng.IntN(2) == 0 {
				continue
			}
			call := t + time.Duration(rng.IntN(20))*ms
			out, ret := history.Fail, call+ms
			if rng.IntN(50) == 0 {
				out, ret = history.Unknown, call+30*ms
			}
			ops = append(ops, history.Op{Kind: history.KindAcquire, Client: c, Key: "lock", Call: call, Return: ret, Outcome: out})
		}
		if round%100 == 0 {
			faultID++
			victim := (w + 1) % clients
			ops = append(ops, history.Op{Kind: history.KindFault, Client: history.NoClient, Call: t, Return: t + 40*ms,
				Outcome: history.OK, Fault: fmt.Sprintf("delay client %d 2ms", victim), FaultID: faultID})
		}
		acq := history.Op{Kind: history.KindAcquire, Client: w, Key: "lock", Call: t, Return: t + ms, Outcome: history.OK,
			Token: token, Deadline: t + ms + 500*ms}
		ops = append(ops, acq,
			history.Op{Kind: history.KindCheck, Client: w, Key: "lock", Call: t + ms, Return: t + 2*ms, Outcome: history.OK, Token: token},
			res(history.KindEnter, w, token, t+3*ms))
		if round%7 == 0 {
			ops = append(ops, history.Op{Kind: history.KindExtend, Client: w, Key: "lock", Call: t + 5*ms, Return: t + 6*ms,
				Outcome: history.OK, Token: token, Deadline: t + 506*ms})
		}
		if round == overlapAt && prev >= 0 && prev != w {
			faultID++
			ops = append(ops,
				history.Op{Kind: history.KindFault, Client: history.NoClient, Call: t - 600*ms, Return: t + 8*ms,
					Outcome: history.OK, Fault: fmt.Sprintf("pause-client %d", prev), FaultID: faultID},
				res(history.KindEnter, prev, prevToken, t+9*ms),
				res(history.KindExit, prev, prevToken, t+12*ms))
		}
		ops = append(ops,
			res(history.KindExit, w, token, t+20*ms),
			history.Op{Kind: history.KindRelease, Client: w, Key: "lock", Call: t + 21*ms, Return: t + 22*ms, Outcome: history.OK, Token: token})
		prev, prevToken = w, token
		t += 25 * ms
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	return history.History{Ops: ops[:n]}
}

func TestCheck100k(t *testing.T) {
	h := realisticHistory(1, 100_000, 8, -1)
	r := Check(h, Config{})
	for _, c := range r.Checks {
		want := map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Safe, vocab.CheckClaim: vocab.Safe, vocab.CheckFencing: vocab.Skipped, vocab.CheckLiveness: vocab.Skipped}[c.Name]
		if c.Verdict != want {
			t.Errorf("%s: %s, want %s (%s)", c.Name, c.Verdict, want, c.Detail)
		}
	}
	if r.Verdict != vocab.Safe || r.Ops != 100_000 {
		t.Errorf("verdict %s over %d ops, want safe over 100000", r.Verdict, r.Ops)
	}
	t.Logf("%s", r.Check(vocab.CheckExclusion).Detail)
}

func TestCheck100kOneOverlap(t *testing.T) {
	h := realisticHistory(1, 100_000, 8, 5000)
	r := Check(h, Config{})
	ex := r.Check(vocab.CheckExclusion)
	if ex.Verdict != vocab.Unsafe || len(ex.Witnesses) != 1 || !r.SweepAgrees {
		t.Fatalf("exclusion %s with %d witnesses, want unsafe with 1: %s", ex.Verdict, len(ex.Witnesses), ex.Detail)
	}
	w := ex.Witnesses[0]
	if w.A.Start >= w.B.Start || w.B.Start >= w.A.End || len(w.Faults) == 0 {
		t.Errorf("witness does not show B entering inside A with its pause: %s", dump(w))
	}
	if c := r.Check(vocab.CheckClaim); c.Verdict != vocab.Safe {
		t.Errorf("claim %s, want safe: the intruder's lease had ended (%s)", c.Verdict, c.Detail)
	}
}

func BenchmarkCheck100k(b *testing.B) {
	h := realisticHistory(1, 100_000, 8, -1)
	b.ReportAllocs()
	for b.Loop() {
		if r := Check(h, Config{}); r.Verdict != vocab.Safe {
			b.Fatalf("verdict %s", r.Verdict)
		}
	}
}
