package checker

import (
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker/histgen"
	"github.com/locksim/locksim/vocab"
)

// Cut at its quiescent points, every partition of a random run gets the
// verdict porcupine gives it whole, for the claim's lease model and for
// the clients' view of the resource (mutex and fenced), legal and illegal
// alike.
func TestQuiescentCutsAgreeWithPorcupine(t *testing.T) {
	saved := wholeLimit
	t.Cleanup(func() { wholeLimit = saved })
	wholeLimit = 0 // every partition is cut

	rng := rand.New(rand.NewPCG(7, 7))
	verdicts := map[porcupine.CheckResult]int{}
	var multiSegment, multiOp int
	for range 1500 {
		h, cfg := randomRun(rng)
		v := Read(h)
		log, err := resourceOps(h, cfg)
		require.NoError(t, err)
		for _, c := range []struct {
			m   porcupine.Model
			ops []porcupine.Operation
		}{
			{claimModel(), claimOps(h)},
			{clientViewModel(log.fenced), clientViewOps(h, log.fenced, v.End)},
		} {
			if len(c.ops) == 0 {
				continue
			}
			for _, p := range c.m.Partition(c.ops) {
				segs := cutSegments(p)
				if len(segs) > 1 {
					multiSegment++
				}
				for _, s := range segs {
					if len(s) > 1 {
						multiOp++
					}
				}
			}
			want := porcupine.CheckOperations(c.m, c.ops)
			got := checkLinearizable(c.m, c.ops, 0)
			if want {
				verdicts[porcupine.Ok]++
				assert.Equal(t, porcupine.Ok, got, "porcupine finds a legal order:\n%s", jsonl(h))
			} else {
				verdicts[porcupine.Illegal]++
				assert.Equal(t, porcupine.Illegal, got, "porcupine finds no legal order:\n%s", jsonl(h))
			}
		}
	}
	assert.Greater(t, verdicts[porcupine.Ok], 300, "legal partitions")
	assert.Greater(t, verdicts[porcupine.Illegal], 300, "illegal partitions")
	assert.Greater(t, multiSegment, 300, "partitions that were cut")
	assert.Greater(t, multiOp, 300, "segments of overlapping operations")
	t.Logf("verdicts %v, %d partitions cut, %d segments of overlapping operations", verdicts, multiSegment, multiOp)
}

// A cut is made only where no operation is open: operations that touch
// (one returns at the instant the next is called) stay together, as
// porcupine orders a call before a return at the same instant.
func TestCutSegments(t *testing.T) {
	op := func(call, ret int64) porcupine.Operation { return porcupine.Operation{Call: call, Return: ret} }
	segs := cutSegments([]porcupine.Operation{op(0, 10), op(2, 3), op(5, 6), op(11, 12), op(12, 13), op(20, 30), op(25, 26)})
	var lens []int
	for _, s := range segs {
		lens = append(lens, len(s))
	}
	assert.Equal(t, []int{3, 2, 2}, lens)
}

// A history of a million clients taking turns on one key, 1.4M
// operations, is decided within the checker's default timeout, as `locksim
// check` runs it: porcupine alone keeps a bitset over the whole partition
// per cached state and runs out of time (unknown). Skipped with -short
// and under the race detector, which make it minutes long.
func TestCheckMillionClientsDecides(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1.4M operations")
	}
	h := histgen.ManyClients(1, largeOps, 1_000_000, -1)
	r := Check(h, Config{})
	require.Equal(t, vocab.Safe, r.Verdict, r.Reason)
	assert.Contains(t, r.Check(vocab.CheckClaim).Detail, "porcupine and the window computation agree")
}

// The same history with one round in which a second client acquires and
// enters while the winner is inside is unsafe, at exclusion and at the
// claim, as `locksim check` checks it (with its warnings).
func TestCheckMillionClientsUnsafe(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1.4M operations")
	}
	h := histgen.ManyClients(1, largeOps, 1_000_000, 100_000)
	r, warnings := CheckWithWarnings(h, Config{}, 1_000_000)
	require.Equal(t, vocab.Unsafe, r.Verdict, r.Reason)
	assert.Equal(t, vocab.Unsafe, r.Check(vocab.CheckExclusion).Verdict, r.Check(vocab.CheckExclusion).Detail)
	assert.Equal(t, vocab.Unsafe, r.Check(vocab.CheckClaim).Verdict, r.Check(vocab.CheckClaim).Detail)
	assert.NotEmpty(t, warnings)
}
