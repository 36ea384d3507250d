package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
)

// The claim as porcupine decides it: the lock service's own history of
// acquire, extend and release operations, with their true-time call and
// return, checked against a lease-mutex model. This is the
// mutual-exclusion linearizability the claim check promises; the direct
// window computation (sweepClaim) is its cross-check.
//
// The model, per key: a lease (one token of one client) is a stack of
// levels. An acquire pushes a level its client may rely on from the
// acquire's return (only once the reply is in hand) on every instant its
// deadline still lies ahead on the client's clock (with any lapse a later
// ok extend vouched for, leaseValidity); it also renews the
// levels still valid at its return, while an extend renews them all; a
// release pops the innermost level (leaseWindows says why). Two clients'
// leases must never both be relied on at one instant, unless both are read
// leases. Each operation
// takes effect at a point inside [call, return]; the state carries the
// point of the last one (now), so points never go back, and at each step
// the model checks every instant between the last point and this one.
// Porcupine searches the orders in which the operations may have taken
// effect, and says illegal when none keeps the leases apart.
//
// Refused acquires and acquires of unknown outcome promised nobody
// anything, so they are no-ops of the model; they are not given to
// porcupine at all, since an open-ended no-op only doubles its search
// space for each one of them. A release ends the client's reliance at its
// call whatever its outcome, so a release of unknown outcome keeps its
// recorded return.

// lockOp is one operation of the lock service for the claim model.
type lockOp struct {
	kind      history.Kind // acquire, extend, release, or "" for the end of the history
	client    int
	key       string
	token     string
	read      bool
	call, ret time.Duration
	// valid: acquire and extend only, the instants from the return on at
	// which the client's clock still read less than the deadline.
	valid []Span
}

// hold is one lease the model knows of: its open levels, innermost last,
// each with the instants at which its client may rely on it (pruned to
// those still ahead).
type hold struct {
	client int
	token  string
	read   bool
	levels [][]Span
}

// live is every instant some level of h may be relied on.
func (h hold) live() []Span {
	var out []Span
	for _, l := range h.levels {
		out = unionSpans(out, l)
	}
	return out
}

// leaseState is immutable: Step returns a new one.
type leaseState struct {
	now   time.Duration
	holds []hold // sorted by client, then token
}

func leaseStep(state, input, _ any) (bool, any) {
	s := state.(*leaseState)
	op := input.(*lockOp)
	p := max(s.now, op.call)
	if p > op.ret {
		return false, nil
	}
	if conflict(s.holds, s.now, p) {
		return false, nil
	}
	n := &leaseState{now: p, holds: make([]hold, 0, len(s.holds)+1)}
	for _, h := range s.holds {
		levels := make([][]Span, len(h.levels), len(h.levels)+1)
		for i, l := range h.levels {
			levels[i] = clipSpans(l, p, forever)
		}
		h.levels = levels
		n.holds = append(n.holds, h)
	}
	i, found := slices.BinarySearchFunc(n.holds, op, func(h hold, op *lockOp) int {
		return cmp.Or(cmp.Compare(h.client, op.client), strings.Compare(h.token, op.token))
	})
	switch op.kind {
	case history.KindAcquire:
		if !found {
			n.holds = slices.Insert(n.holds, i, hold{client: op.client, token: op.token, read: op.read})
		}
		h := &n.holds[i]
		for j, l := range h.levels {
			if covers(l, op.ret) {
				h.levels[j] = unionSpans(l, op.valid)
			}
		}
		h.levels = append(h.levels, op.valid)
	case history.KindExtend:
		if found {
			h := &n.holds[i]
			for j, l := range h.levels {
				h.levels[j] = unionSpans(l, op.valid)
			}
		}
	case history.KindRelease:
		if found {
			h := &n.holds[i]
			if h.levels = h.levels[:len(h.levels)-1]; len(h.levels) == 0 {
				n.holds = slices.Delete(n.holds, i, i+1)
			}
		}
	default: // the end of the history: every instant left was checked above
		if conflict(n.holds, p, forever) {
			return false, nil
		}
	}
	return true, n
}

// conflict reports whether two clients' holds overlap in [from, to).
func conflict(holds []hold, from, to time.Duration) bool {
	if from >= to {
		return false
	}
	live := make([][]Span, len(holds))
	for i := range holds {
		live[i] = clipSpans(holds[i].live(), from, to)
	}
	for i := range holds {
		if len(live[i]) == 0 {
			continue
		}
		for j := i + 1; j < len(holds); j++ {
			b := holds[j]
			if b.client == holds[i].client || (b.read && holds[i].read) {
				continue
			}
			if _, _, ok := firstCommon(live[i], live[j]); ok {
				return true
			}
		}
	}
	return false
}

func leaseEqual(a, b any) bool {
	x, y := a.(*leaseState), b.(*leaseState)
	return x.now == y.now && slices.EqualFunc(x.holds, y.holds, func(p, q hold) bool {
		return p.client == q.client && p.token == q.token && p.read == q.read &&
			slices.EqualFunc(p.levels, q.levels, func(a, b []Span) bool { return slices.Equal(a, b) })
	})
}

func leaseHash(state any) uint64 {
	s := state.(*leaseState)
	h := mix(fnvOffset, uint64(s.now))
	for _, x := range s.holds {
		h = mix(mix(h, uint64(x.client)), uint64(len(x.levels)))
		for i := 0; i < len(x.token); i++ {
			h = (h ^ uint64(x.token[i])) * fnvPrime
		}
		for _, l := range x.levels {
			h = mix(h, uint64(len(l)))
			for _, sp := range l {
				h = mix(mix(h, uint64(sp.Start)), uint64(sp.End))
			}
		}
	}
	return h
}

func describeLeaseState(state any) string {
	s := state.(*leaseState)
	if len(s.holds) == 0 {
		return "no lease held"
	}
	parts := make([]string, len(s.holds))
	for i, h := range s.holds {
		parts[i] = fmt.Sprintf("c%d %s x%d", h.client, h.token, len(h.levels))
	}
	return "held: " + strings.Join(parts, ", ")
}

func describeLockOp(input, _ any) string {
	op := input.(*lockOp)
	if op.kind == "" {
		return "end of history"
	}
	return fmt.Sprintf("%s %s", op.kind, op.token)
}

// claimModel is the lease-mutex model, one partition per key.
func claimModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			return partitionBy(ops, func(o porcupine.Operation) string { return o.Input.(*lockOp).key })
		},
		Init:              func() any { return &leaseState{} },
		Step:              leaseStep,
		Equal:             leaseEqual,
		Hash:              leaseHash,
		DescribeOperation: describeLockOp,
		DescribeState:     describeLeaseState,
	}
}

// claimOps builds porcupine's input: the lease events of every key, and
// one end-of-history operation per key after everything else.
func claimOps(h history.History) []porcupine.Operation {
	byID, ids, _ := leaseEvents(h)
	valid := leaseValidity(byID, ids, clockCourses(h))
	var ops []porcupine.Operation
	keys := map[string]bool{}
	var last time.Duration
	for _, id := range ids {
		keys[id.key] = true
		for _, e := range byID[id] {
			op := &lockOp{kind: e.Kind, client: e.Client, key: e.Key, token: e.Token, read: e.Mode == "read", call: e.Call, ret: e.Return}
			if e.Kind != history.KindRelease {
				op.valid = valid.spans[e]
			}
			last = max(last, e.Return)
			ops = append(ops, porcupine.Operation{ClientId: e.Client, Input: op, Call: int64(e.Call), Return: int64(e.Return)})
		}
	}
	for key := range keys {
		t := last + 1
		ops = append(ops, porcupine.Operation{ClientId: 0, Input: &lockOp{key: key, call: t, ret: t, client: math.MinInt},
			Call: int64(t), Return: int64(t)})
	}
	return ops
}

// partitionBy splits operations by a key, keeping their order; locks on
// different keys are independent, and porcupine checks partitions in
// parallel. Keys are counted first, so that each partition is allocated
// once at its size (a long history is mostly one key).
func partitionBy(ops []porcupine.Operation, key func(porcupine.Operation) string) [][]porcupine.Operation {
	idx := map[string]int{}
	var sizes []int
	for _, o := range ops {
		k := key(o)
		i, ok := idx[k]
		if !ok {
			i = len(sizes)
			idx[k] = i
			sizes = append(sizes, 0)
		}
		sizes[i]++
	}
	parts := make([][]porcupine.Operation, len(sizes))
	for i, n := range sizes {
		parts[i] = make([]porcupine.Operation, 0, n)
	}
	for _, o := range ops {
		i := idx[key(o)]
		parts[i] = append(parts[i], o)
	}
	return parts
}
