package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/sim"
)

// randomHistory builds a small resource log: random clients, keys and modes,
// fencing on or off, in a random serial order, with some operations that
// never reached the resource and the history itself shuffled (histories are
// in completion order, not the resource's). Clients mostly behave, so that
// both verdicts are common.
func randomHistory(rng *rand.Rand) (sim.History, Config) {
	fenced := rng.IntN(2) == 0
	clients := 1 + rng.IntN(4)
	keys := []string{"a", "b"}[:1+rng.IntN(2)]
	rw := rng.IntN(2) == 0
	n := rng.IntN(30)
	var ops []sim.Op
	seq := int64(0)
	applied := func(op sim.Op) sim.Op {
		if rng.IntN(10) == 0 {
			op.Outcome = sim.Unknown // never reached the resource
			return op
		}
		seq += 1 + int64(rng.IntN(3))
		op.Seq = seq
		op.At = time.Duration(seq/2) * time.Millisecond // ties in At happen
		return op
	}
	type lease struct {
		client int
		token  string
		fence  int64
	}
	type keyState struct {
		inside   map[int]string // client -> mode
		leases   []lease
		maxFence int64
		maxSeen  int64 // largest accepted fence
	}
	state := map[string]*keyState{}
	for _, k := range keys {
		state[k] = &keyState{inside: map[int]string{}}
	}
	for range n {
		key := keys[rng.IntN(len(keys))]
		ks := state[key]
		c := rng.IntN(clients)
		if fenced {
			if len(ks.leases) == 0 || rng.IntN(3) == 0 {
				f := ks.maxFence + 1
				if rng.IntN(6) == 0 && ks.maxFence > 0 {
					f = ks.maxFence - int64(rng.IntN(2)) // repeated or lower
				}
				ks.maxFence = max(ks.maxFence, f)
				ks.leases = append(ks.leases, lease{c, "t" + string(rune('a'+len(ks.leases))), f})
			}
			l := ks.leases[len(ks.leases)-1]
			if rng.IntN(3) == 0 {
				l = ks.leases[rng.IntN(len(ks.leases))]
			}
			ok := l.fence >= ks.maxSeen
			if rng.IntN(8) == 0 {
				ok = !ok // a resource that does not do its job
			}
			op := sim.Op{Kind: sim.KindWrite, Client: l.client, Key: key, Token: l.token, Fence: l.fence, Outcome: sim.Fail}
			op = applied(op)
			if op.Seq > 0 && ok {
				op.Outcome = sim.OK
				ks.maxSeen = max(ks.maxSeen, l.fence)
			}
			ops = append(ops, op)
			continue
		}
		mode := "write"
		if rw && rng.IntN(2) == 0 {
			mode = "read"
		}
		kind := sim.KindEnter
		if m, in := ks.inside[c]; in {
			mode = m
			if rng.IntN(5) != 0 {
				kind = sim.KindExit
				delete(ks.inside, c)
			}
		} else if len(ks.inside) > 0 && rng.IntN(4) != 0 {
			continue // mostly wait for the lock
		} else if rng.IntN(10) == 0 {
			kind = sim.KindExit // stray
		}
		if kind == sim.KindEnter {
			ks.inside[c] = mode
		}
		ops = append(ops, applied(sim.Op{Kind: kind, Client: c, Key: key, Mode: mode, Token: "t", Outcome: sim.OK}))
	}
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return sim.History{Ops: ops}, Config{Fencing: fenced, Timeout: -1}
}

func disagrees(h sim.History, cfg Config) bool {
	r := Check(h, cfg)
	return !r.SweepAgrees || r.Check(nameExclusion).Verdict == Unknown
}

// minimise drops operations one at a time while the disagreement stays.
func minimise(h sim.History, cfg Config) sim.History {
	for again := true; again; {
		again = false
		for i := range h.Ops {
			smaller := sim.History{Ops: append(append([]sim.Op(nil), h.Ops[:i]...), h.Ops[i+1:]...)}
			if disagrees(smaller, cfg) {
				h, again = smaller, true
				break
			}
		}
	}
	return h
}

// agreement runs n random histories and returns the first disagreement,
// minimised, with the verdict counts.
func agreement(seed uint64, n int) (bad *sim.History, cfg Config, counts map[Verdict]int) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	counts = map[Verdict]int{}
	for range n {
		h, c := randomHistory(rng)
		counts[Check(h, c).Check(nameExclusion).Verdict]++
		if disagrees(h, c) {
			m := minimise(h, c)
			return &m, c, counts
		}
	}
	return nil, Config{}, counts
}

func jsonl(h sim.History) string {
	var b bytes.Buffer
	_ = h.WriteJSONL(&b)
	return b.String()
}

func TestPorcupineAndSweepAgree(t *testing.T) {
	bad, cfg, counts := agreement(1, 1000)
	if bad != nil {
		t.Fatalf("porcupine and the sweep disagree (fencing %v) on this minimised history:\n%s%s",
			cfg.Fencing, jsonl(*bad), Check(*bad, cfg).Check(nameExclusion).Detail)
	}
	// a generator that only makes safe (or only unsafe) histories would
	// prove nothing
	if counts[Safe] < 100 || counts[Unsafe] < 100 {
		t.Fatalf("random histories not varied enough: %v", counts)
	}
	t.Logf("verdicts over 1000 random histories: %v", counts)
}

// The agreement test can fail: with a porcupine that accepts everything it
// must find a disagreement and shrink it to the smallest overlap.
func TestAgreementCatchesABrokenChecker(t *testing.T) {
	saved := runPorcupine
	t.Cleanup(func() { runPorcupine = saved })
	runPorcupine = func(porcupine.Model, []porcupine.Operation, time.Duration, bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
		return porcupine.Ok, nil
	}
	bad, cfg, _ := agreement(1, 1000)
	if bad == nil {
		t.Fatal("a porcupine that accepts everything went unnoticed")
	}
	// two enters, or a write between two writes of another lease
	if want := map[bool]int{false: 2, true: 3}[cfg.Fencing]; len(bad.Ops) != want {
		t.Errorf("minimised to %d ops, want %d:\n%s", len(bad.Ops), want, jsonl(*bad))
	}
}
