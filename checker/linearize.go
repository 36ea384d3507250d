package checker

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// wholeLimit is the largest partition handed to porcupine whole. Porcupine
// keeps a copy of a bitset over the whole partition for every state it
// caches, so a partition of n operations costs it time and memory in n²:
// a million sequential operations on one key outlast any timeout. Larger
// partitions are cut at their quiescent points (cutSegments) and decided
// segment by segment (linearizeSegments).
var wholeLimit = 20_000

// checkLinearizable decides, as porcupine.CheckOperationsTimeout does,
// whether ops have a legal order under m: Ok, Illegal, or Unknown when
// timeout (0: none) ran out first. Partitions up to wholeLimit go to
// porcupine as they are; a larger one is cut where no operation is open.
//
// The cut is sound: at an instant t that lies after the return of every
// operation called before it and before the call of every operation after
// it, real-time order puts the whole prefix before the whole suffix in any
// linearization. So the partition is linearizable iff some state reached
// by a legal order of the prefix starts a legal order of the suffix. The
// segments are walked in time order with the set of every state a legal
// order of the segments so far can end in (deduplicated with the model's
// Hash and Equal); the partition is illegal when the set empties.
func checkLinearizable(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration) porcupine.CheckResult {
	parts := [][]porcupine.Operation{ops}
	if m.Partition != nil {
		parts = m.Partition(ops)
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	var whole []porcupine.Operation
	result := porcupine.Ok
	for _, p := range parts {
		if len(p) <= wholeLimit {
			whole = append(whole, p...)
			continue
		}
		switch linearizeSegments(m, cutSegments(p), deadline) {
		case porcupine.Illegal:
			return porcupine.Illegal
		case porcupine.Unknown:
			result = porcupine.Unknown
		}
	}
	if len(whole) > 0 {
		left := time.Duration(0)
		if !deadline.IsZero() {
			if left = time.Until(deadline); left <= 0 {
				return porcupine.Unknown
			}
		}
		switch porcupine.CheckOperationsTimeout(m, whole, left) {
		case porcupine.Illegal:
			return porcupine.Illegal
		case porcupine.Unknown:
			result = porcupine.Unknown
		}
	}
	return result
}

// cutSegments orders ops by call and cuts them where the next call comes
// strictly after every earlier return (porcupine orders a call before a
// return at the same instant, so operations that touch overlap).
func cutSegments(ops []porcupine.Operation) [][]porcupine.Operation {
	sorted := slices.Clone(ops)
	slices.SortStableFunc(sorted, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var segs [][]porcupine.Operation
	start := 0
	var lastReturn int64
	for i, o := range sorted {
		if i > 0 && o.Call > lastReturn {
			segs = append(segs, sorted[start:i:i])
			start = i
		}
		if i == start || o.Return > lastReturn {
			lastReturn = o.Return
		}
	}
	if start < len(sorted) {
		segs = append(segs, sorted[start:])
	}
	return segs
}

// stateSet is a set of model states, told apart by the model's Hash (when
// it has one) and Equal.
type stateSet struct {
	m      porcupine.Model
	byHash map[uint64][]any
	all    []any
}

func newStateSet(m porcupine.Model) *stateSet {
	return &stateSet{m: m, byHash: map[uint64][]any{}}
}

func (s *stateSet) add(st any) {
	var h uint64
	if s.m.Hash != nil {
		h = s.m.Hash(st)
	}
	for _, o := range s.byHash[h] {
		if s.m.Equal(o, st) {
			return
		}
	}
	s.byHash[h] = append(s.byHash[h], st)
	s.all = append(s.all, st)
}

// linearizeSegments walks the quiescent segments of one partition in time
// order, carrying every state a legal order can end a segment in. A
// segment of one operation steps each state; a longer one is searched
// (segmentEnds). The deadline (zero: none) is read between segments and
// inside the search.
func linearizeSegments(m porcupine.Model, segs [][]porcupine.Operation, deadline time.Time) porcupine.CheckResult {
	if m.Equal == nil {
		m.Equal = func(a, b any) bool { return a == b }
	}
	if m.Step == nil {
		ctx := context.Background()
		m.Step = func(st, in, out any) (bool, any) { return m.StepContext(ctx, st, in, out) }
	}
	states := []any{m.Init()}
	for i, seg := range segs {
		if i%1024 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			return porcupine.Unknown
		}
		if len(seg) == 1 && len(states) == 1 {
			// the common case, one state and one operation: no set needed
			ok, ns := m.Step(states[0], seg[0].Input, seg[0].Output)
			if !ok {
				return porcupine.Illegal
			}
			states[0] = ns
			continue
		}
		next := newStateSet(m)
		if len(seg) == 1 {
			for _, st := range states {
				if ok, ns := m.Step(st, seg[0].Input, seg[0].Output); ok {
					next.add(ns)
				}
			}
		} else if !segmentEnds(m, seg, states, next, deadline) {
			return porcupine.Unknown
		}
		if len(next.all) == 0 {
			return porcupine.Illegal
		}
		states = next.all
	}
	return porcupine.Ok
}

// segmentEnds adds to ends every state in which some legal order of all of
// seg's operations, started from one of from, ends. An operation may come
// next when no other operation still to be placed returned before it was
// called. The search remembers each (operations placed, state) it has
// expanded, as porcupine's cache does. It returns false when the deadline
// passed.
func segmentEnds(m porcupine.Model, seg []porcupine.Operation, from []any, ends *stateSet, deadline time.Time) bool {
	n := len(seg)
	words := (n + 63) / 64
	type seen struct {
		placed []uint64
		state  any
	}
	visited := map[uint64][]seen{}
	placed := make([]uint64, words)
	steps := 0
	expired := false
	var walk func(count int, st any)
	walk = func(count int, st any) {
		if expired {
			return
		}
		if count == n {
			ends.add(st)
			return
		}
		h := uint64(fnvOffset)
		for _, w := range placed {
			h = mix(h, w)
		}
		if m.Hash != nil {
			h ^= m.Hash(st)
		}
		for _, v := range visited[h] {
			if slices.Equal(v.placed, placed) && m.Equal(v.state, st) {
				return
			}
		}
		visited[h] = append(visited[h], seen{slices.Clone(placed), st})
		if steps++; steps%4096 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			expired = true
			return
		}
		first := int64(0)
		found := false
		for i, o := range seg {
			if placed[i/64]&(1<<(i%64)) == 0 && (!found || o.Return < first) {
				first, found = o.Return, true
			}
		}
		for i, o := range seg {
			if placed[i/64]&(1<<(i%64)) != 0 || o.Call > first {
				continue
			}
			if ok, ns := m.Step(st, o.Input, o.Output); ok {
				placed[i/64] |= 1 << (i % 64)
				walk(count+1, ns)
				placed[i/64] &^= 1 << (i % 64)
			}
		}
	}
	for _, st := range from {
		walk(0, st)
	}
	return !expired
}
