package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
)

// occupant is a client inside the section, with how many times it entered
// in each mode and has not exited yet.
type occupant struct {
	client        int
	reads, writes int
}

// mutexState is who is inside, sorted by client. It is immutable: Step
// returns a new slice, as porcupine requires.
type mutexState []occupant

// mutexStep is the unfenced model. Mutual exclusion is a property between
// different clients, so:
//   - enter(write) is legal when no other client is inside;
//   - enter(read) is legal when no other client is inside as a writer;
//   - the client already inside may enter again (a reentrant lock nests, a
//     writer may read), which only raises its count;
//   - exit lowers the client's count in that mode; an exit with nothing to
//     lower is a legal no-op. Such a stray exit pairs with an enter that
//     never reached the resource (Seq 0) or duplicates one; either way
//     nobody entered, and an exit can only shrink who is inside, so it can
//     never be the second party of an overlap. Declaring it illegal would
//     report an unsafe run with no second client to show as witness.
//
// An exit that never reached the resource does not happen here: to the
// resource that client stays inside, and the next client to enter overlaps
// it. A lost exit is indistinguishable, at the resource, from an exit
// delayed past the end of the run.
func mutexStep(state, input, _ any) (bool, any) {
	s := state.(mutexState)
	op := input.(*resOp)
	i, inside := slices.BinarySearchFunc(s, op.client, func(o occupant, c int) int { return o.client - c })
	if op.kind == history.KindEnter {
		for _, o := range s {
			if o.client != op.client && (!op.read || o.writes > 0) {
				return false, nil
			}
		}
		n := slices.Clone(s)
		if !inside {
			n = slices.Insert(n, i, occupant{client: op.client})
		}
		if op.read {
			n[i].reads++
		} else {
			n[i].writes++
		}
		return true, n
	}
	if !inside || (op.read && s[i].reads == 0) || (!op.read && s[i].writes == 0) {
		return true, s
	}
	n := slices.Clone(s)
	if op.read {
		n[i].reads--
	} else {
		n[i].writes--
	}
	if n[i].reads == 0 && n[i].writes == 0 {
		n = slices.Delete(n, i, i+1)
	}
	return true, n
}

func mutexHash(state any) uint64 {
	h := uint64(fnvOffset)
	for _, o := range state.(mutexState) {
		h = mix(mix(mix(h, uint64(o.client)), uint64(o.reads)), uint64(o.writes))
	}
	return h
}

func describeMutex(state any) string {
	s := state.(mutexState)
	if len(s) == 0 {
		return "nobody inside"
	}
	parts := make([]string, len(s))
	for i, o := range s {
		parts[i] = fmt.Sprintf("c%d", o.client)
		if o.writes > 0 {
			parts[i] += fmt.Sprintf(" w%d", o.writes)
		}
		if o.reads > 0 {
			parts[i] += fmt.Sprintf(" r%d", o.reads)
		}
	}
	return "inside: " + strings.Join(parts, ", ")
}

// fenceState is the fenced model's state: the current section and every
// section that was ever current. seen is a persistent set, shared between
// states, so a step costs O(log n) instead of copying the set.
type fenceState struct {
	cur  section
	has  bool
	seen *setNode
	n    int    // sections in seen
	hash uint64 // xor of the hashes of the sections in seen
}

// fenceStep is the fenced model: accepted writes are the effects; a
// section is one lease's run of them. A write is legal if its section is
// the current one, or is new: then it becomes current and the previous
// section is closed for good. So a pre-empted section ends where the
// resource first accepted the next lease's write, and any later accepted
// write of it interleaves. Rejected writes are no-ops: the resource did
// its job and nothing happened.
func fenceStep(state, input, _ any) (bool, any) {
	s := state.(*fenceState)
	op := input.(*resOp)
	if !op.accepted {
		return true, s
	}
	sec := op.section()
	if s.has && s.cur == sec {
		return true, s
	}
	h := sectionHash(sec)
	if s.seen.contains(h, sec) {
		return false, nil
	}
	return true, &fenceState{cur: sec, has: true, seen: s.seen.insert(h, sec), n: s.n + 1, hash: s.hash ^ h}
}

func fenceEqual(a, b any) bool {
	x, y := a.(*fenceState), b.(*fenceState)
	if x == y {
		return true
	}
	if x.has != y.has || x.cur != y.cur || x.n != y.n || x.hash != y.hash {
		return false
	}
	return slices.Equal(x.seen.elements(nil), y.seen.elements(nil))
}

func describeFence(state any) string {
	s := state.(*fenceState)
	if !s.has {
		return "no accepted write yet"
	}
	return fmt.Sprintf("current: c%d %s fence %d; %d closed", s.cur.client, s.cur.token, s.cur.fence, s.n-1)
}

func describeOp(input, _ any) string {
	op := input.(*resOp)
	mode := "write"
	if op.read {
		mode = "read"
	}
	switch op.kind {
	case history.KindWrite:
		verb := "accepted"
		if !op.accepted {
			verb = "rejected"
		}
		return fmt.Sprintf("write %s fence %d %s", op.token, op.fence, verb)
	case history.KindEnter, history.KindExit:
		if mode == "read" {
			return fmt.Sprintf("%s (read) %s", op.kind, op.token)
		}
		return fmt.Sprintf("%s %s", op.kind, op.token)
	default:
		return fmt.Sprintf("%s(%s) %s", op.kind, mode, op.token)
	}
}

// describeMeta is an operation's tooltip in check.html. It opens with the
// operation's label, so that a box too short for its label, or one drawn
// under another, can still be read on hover.
func describeMeta(meta any) string {
	op, ok := meta.(*history.Op)
	if !ok {
		return ""
	}
	s := fmt.Sprintf("%s: key %s; sent at %v", describeOp(clientOp(op), nil), op.Key, op.Call)
	if op.Unacked {
		s += ", no reply"
	} else {
		s += fmt.Sprintf(", reply at %v", op.Return)
	}
	return s + fmt.Sprintf("; landed at %v (seq %d)", op.At, op.Seq)
}

// clientViewModel is the sequential specification of the protected
// resource, one partition per lock key: the mutex model (mutexStep) without
// fencing, the section model (fenceStep) with it. A fenced write whose
// reply its client never saw may have been accepted or rejected, so the
// fenced model is nondeterministic there.
func clientViewModel(fenced bool) porcupine.Model {
	partition := func(ops []porcupine.Operation) [][]porcupine.Operation {
		return partitionBy(ops, func(o porcupine.Operation) string { return o.Input.(*resOp).key })
	}
	if !fenced {
		return porcupine.Model{
			Partition:                 partition,
			Init:                      func() any { return mutexState(nil) },
			Step:                      mutexStep,
			Equal:                     func(a, b any) bool { return slices.Equal(a.(mutexState), b.(mutexState)) },
			Hash:                      mutexHash,
			DescribeOperation:         describeOp,
			DescribeOperationMetadata: describeMeta,
			DescribeState:             describeMutex,
		}
	}
	nm := porcupine.NondeterministicModel{
		Partition: partition,
		Init:      func() []any { return []any{&fenceState{}} },
		Step: func(state, input, output any) []any {
			op := input.(*resOp)
			var next []any
			for _, accepted := range []bool{true, false} {
				if !op.unacked && accepted != op.accepted {
					continue
				}
				o := *op
				o.accepted = accepted
				if ok, n := fenceStep(state, &o, output); ok {
					next = append(next, n)
				}
			}
			return next
		},
		Equal:                     fenceEqual,
		Hash:                      func(s any) uint64 { return s.(*fenceState).hash },
		DescribeOperation:         describeOp,
		DescribeOperationMetadata: describeMeta,
		DescribeState:             describeFence,
	}
	return nm.ToModel()
}
