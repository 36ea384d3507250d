package checker

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
)

// TestHoldIndexCutsAsEveryHoldDoes: cutting an observed hold with only the
// derived holds the index finds near it gives what cutting it with every
// derived hold of the lane gives, overlapping and out-of-order holds of
// two keys included.
func TestHoldIndexCutsAsEveryHoldDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for round := range 300 {
		var derived []NodeHold
		for range r.IntN(40) {
			start := ms(r.IntN(1000))
			derived = append(derived, NodeHold{Key: []string{"a", "b"}[r.IntN(2)], Start: start, End: start + ms(r.IntN(120))})
		}
		x := newHoldIndex(derived)
		for range 20 {
			start := ms(r.IntN(1100) - 50)
			o := NodeHold{Key: []string{"a", "b"}[r.IntN(2)], Start: start, End: start + ms(r.IntN(200)), Observed: true}
			require.Equal(t, uncovered(o, derived), uncovered(o, x.near(o)), "round %d: %+v against %+v", round, o, derived)
		}
	}
}

// TestHoldIndexScales: thousands of observed and derived holds on one
// lane (a dense fault schedule) are cut in far less than the pairwise
// comparison took.
func TestHoldIndexScales(t *testing.T) {
	const n = 20000
	derived := make([]NodeHold, n)
	observed := make([]NodeHold, n)
	for i := range n {
		at := time.Duration(i) * 3 * time.Millisecond
		derived[i] = NodeHold{Key: "k", Start: at, End: at + time.Millisecond}
		observed[i] = NodeHold{Key: "k", Start: at, End: at + 2*time.Millisecond, Observed: true}
	}
	lanes := []NodeLane{{Holds: derived}}
	start := time.Now()
	addObserved(lanes, [][]NodeHold{observed}, []bool{true})
	// The pairwise cut is n*n = 4e8 comparisons, seconds at the least.
	require.Less(t, time.Since(start), 2*time.Second)
	require.Len(t, lanes[0].Holds, n, "every observed hold is covered by its derived one")
}

// TestEntitledSkipsWhatCannotCount: entitled, which starts at the segment
// of from and stops where the clock never again reads below the deadline,
// gives what walking every segment gives, for clocks that jump back and
// forth and change rate.
func TestEntitledSkipsWhatCannotCount(t *testing.T) {
	every := func(cc clockCourse, from, deadline time.Duration) []Span {
		var out []Span
		for i, s := range cc {
			segEnd := forever
			if i+1 < len(cc) {
				segEnd = cc[i+1].at
			}
			start := max(s.at, from)
			if start >= segEnd {
				continue
			}
			left := float64(deadline-s.reading) / s.rate
			if left <= float64(start-s.at) {
				continue
			}
			end := segEnd
			if left < float64(segEnd-s.at) {
				end = s.at + time.Duration(left)
			}
			if end > start {
				out = appendSpan(out, Span{start, end})
			}
		}
		return out
	}
	r := rand.New(rand.NewPCG(3, 4))
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for round := range 300 {
		var h history.History
		at, reading := time.Duration(0), time.Duration(0)
		for range 1 + r.IntN(30) {
			at += ms(1 + r.IntN(50))
			reading = at + ms(r.IntN(400)-200)
			h.Ops = append(h.Ops, history.Op{Kind: history.KindClock, Client: 0, Call: at, Reading: reading, Rate: []float64{0.5, 1, 2}[r.IntN(3)]})
		}
		cc := clockCourses(h)[0]
		for range 20 {
			from, deadline := ms(r.IntN(1200)), ms(r.IntN(1500)-100)
			if deadline == 0 {
				continue
			}
			require.Equal(t, every(cc, from, deadline), cc.entitled(from, deadline), "round %d: from %v, deadline %v", round, from, deadline)
		}
	}
}
