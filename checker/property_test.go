package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// disagrees: porcupine and its cross-check contradict each other on the
// claim or on exclusion (Config.Timeout is -1: porcupine never gives up).
func disagrees(h history.History, cfg Config) bool {
	r := Check(h, cfg)
	return !r.SweepAgrees || r.Check(vocab.CheckExclusion).Verdict == vocab.Unknown || r.Check(vocab.CheckClaim).Verdict == vocab.Unknown
}

// minimise drops operations one at a time while the disagreement stays.
func minimise(h history.History, cfg Config) history.History {
	for again := true; again; {
		again = false
		for i := range h.Ops {
			smaller := history.History{Ops: append(append([]history.Op(nil), h.Ops[:i]...), h.Ops[i+1:]...)}
			if disagrees(smaller, cfg) {
				h, again = smaller, true
				break
			}
		}
	}
	return h
}

// agreement runs n random histories and returns the first disagreement,
// minimised, with the verdict counts of each check.
func agreement(seed uint64, n int) (bad *history.History, cfg Config, counts map[string]map[vocab.Verdict]int) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	counts = map[string]map[vocab.Verdict]int{vocab.CheckExclusion: {}, vocab.CheckClaim: {}}
	for range n {
		h, c := randomRun(rng)
		r := Check(h, c)
		counts[vocab.CheckExclusion][r.Check(vocab.CheckExclusion).Verdict]++
		counts[vocab.CheckClaim][r.Check(vocab.CheckClaim).Verdict]++
		if disagrees(h, c) {
			m := minimise(h, c)
			return &m, c, counts
		}
	}
	return nil, Config{}, counts
}

func jsonl(h history.History) string {
	var b bytes.Buffer
	_ = h.WriteJSONL(&b)
	return b.String()
}

// Over random runs (concurrent clients, unknown outcomes, moving clocks,
// delayed and in-flight messages, faults), porcupine never contradicts its
// cross-check: on the claim the two decide the same property and must
// agree exactly; on exclusion porcupine's view is blurrier, so it may find
// a legal order where the resource's log shows an overlap, never the
// other way round.
func TestPorcupineAndSweepAgree(t *testing.T) {
	bad, cfg, counts := agreement(1, 1000)
	if bad != nil {
		r := Check(*bad, cfg)
		t.Fatalf("porcupine and its cross-check disagree (fencing %v) on this minimised history:\n%s%s\n%s",
			cfg.Fencing, jsonl(*bad), r.Check(vocab.CheckExclusion).Detail, r.Check(vocab.CheckClaim).Detail)
	}
	// a generator that only makes safe (or only unsafe) histories would
	// prove nothing
	for _, name := range []string{vocab.CheckExclusion, vocab.CheckClaim} {
		if counts[name][vocab.Safe] < 100 || counts[name][vocab.Unsafe] < 100 {
			t.Fatalf("random histories not varied enough for %s: %v", name, counts[name])
		}
	}
	t.Logf("verdicts over 1000 random histories: %v", counts)
}

// The agreement test can fail: with a porcupine that accepts everything it
// must find a disagreement and shrink it to a handful of operations.
func TestAgreementCatchesABrokenChecker(t *testing.T) {
	saved := runPorcupine
	t.Cleanup(func() { runPorcupine = saved })
	runPorcupine = func(porcupine.Model, []porcupine.Operation, time.Duration, bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
		return porcupine.Ok, nil
	}
	bad, _, _ := agreement(1, 1000)
	if bad == nil {
		t.Fatal("a porcupine that accepts everything went unnoticed")
	}
	// two leases of different clients that overlap
	if len(bad.Ops) > 3 {
		t.Errorf("minimised to %d ops, want at most 3:\n%s", len(bad.Ops), jsonl(*bad))
	}
}
