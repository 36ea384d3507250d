package checker

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
)

// Ends of a hold read off the harness's node records (history.KindNode).
const (
	// HoldGone: a read found the key gone (released, expired or lost; the
	// reads do not say which).
	HoldGone = "gone"
	// HoldUnobserved: the node stopped answering the harness's reads.
	HoldUnobserved = "unobserved"
)

// observedHolds reads, per node, the holds the harness's node records
// show: from the read that first found a value on a key to the read that
// found the key gone, holding another value, or the node not answering.
// A hold's client is the one whose acquire carried that value as its
// token, or the c<i>- prefix of the harness's own tokens, or else the one
// client with an acquire attempt under way while the value appeared (a
// failed attempt returns no token: the hold is then that attempt's, and
// Failed when each of those attempts was refused); NoClient when none of
// these says, with Probe when the liveness probe was under way. NoTTL says the key had no TTL at the last read of the hold.
// observed[node] says whether the harness read the node at all.
func observedHolds(h history.History, n int, end time.Duration) (holds [][]NodeHold, observed []bool) {
	holds, observed = make([][]NodeHold, n), make([]bool, n)
	owner := map[string]int{}
	var attempts, probes []history.Op
	for _, op := range h.Ops {
		if op.Kind == history.KindProbe {
			probes = append(probes, op)
		}
		if op.Kind == history.KindAcquire && op.Client != history.NoClient {
			attempts = append(attempts, op)
			if op.Token != "" {
				owner[op.Token] = op.Client
			}
		}
	}
	// attemptOwner: the one client with acquire attempts under way in
	// [from, to], and whether all of them failed.
	attemptOwner := func(from, to time.Duration) (client int, failed bool) {
		client, failed = history.NoClient, true
		for _, a := range attempts {
			if a.Call > to || a.Return < from {
				continue
			}
			if client != history.NoClient && client != a.Client {
				return history.NoClient, false
			}
			client, failed = a.Client, failed && a.Outcome == history.Fail
		}
		return client, failed && client != history.NoClient
	}
	type nodeKey struct {
		node int
		key  string
	}
	var ops []history.Op
	for _, op := range h.Ops {
		if op.Kind == history.KindNode && op.Node < n {
			ops = append(ops, op)
		}
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	open := map[nodeKey]*NodeHold{}
	closeAt := func(k nodeKey, at time.Duration, why string) {
		if o := open[k]; o != nil {
			o.End, o.Ended = max(at, o.Start), why
			holds[k.node] = append(holds[k.node], *o)
			delete(open, k)
		}
	}
	for _, op := range ops {
		observed[op.Node] = true
		k := nodeKey{op.Node, op.Key}
		switch op.Outcome {
		case history.OK:
			if o := open[k]; o != nil && o.Token == op.Value {
				o.NoTTL = op.NoTTL // the same hold; its TTL set or dropped
				continue
			}
			closeAt(k, op.Return, HoldTaken)
			hold := &NodeHold{Client: valueOwner(op.Value, owner), Key: op.Key, Token: op.Value,
				Start: op.Return, NoTTL: op.NoTTL, Observed: true}
			if hold.Client == history.NoClient {
				hold.Client, hold.Failed = attemptOwner(op.Call, op.Return)
			}
			if hold.Client == history.NoClient {
				hold.Probe = slices.ContainsFunc(probes, func(p history.Op) bool { return p.Call <= op.Return && op.Call <= p.Return })
			}
			open[k] = hold
		case history.Fail:
			closeAt(k, op.Return, HoldGone)
		default:
			closeAt(k, op.Return, HoldUnobserved)
		}
	}
	for k := range open {
		closeAt(k, end, EndOpen)
	}
	for i := range holds {
		slices.SortStableFunc(holds[i], func(a, b NodeHold) int { return cmp.Compare(a.Start, b.Start) })
	}
	return holds, observed
}

// harnessToken is the shape of the tokens the harness gives its clients'
// leases: c<client>-<n>.
var harnessToken = regexp.MustCompile(`^c(\d+)-`)

// valueOwner is the client whose token value is, or one of its fields (a
// hash keyed by owner), NoClient when none is known.
func valueOwner(value string, owner map[string]int) int {
	for _, v := range append([]string{value}, strings.Split(value, ",")...) {
		if c, ok := owner[v]; ok {
			return c
		}
	}
	for _, v := range strings.Split(value, ",") {
		if m := harnessToken.FindStringSubmatch(v); m != nil {
			if c, err := strconv.Atoi(m[1]); err == nil {
				return c
			}
		}
	}
	return history.NoClient
}

// observedSlack is how far a read's instant may lag the change it saw:
// the reads' interval (5 ms) and a read's own round trip.
const observedSlack = 10 * time.Millisecond

// addObserved adds to each lane what its observed holds show beyond the
// holds derived from the design's own operations: the parts of each
// observed hold that no derived hold of the key (widened by observedSlack
// on both sides, the reads' lag) covers, each pulled up to the derived
// hold that cut it. That is what the design could not say (a process
// design's nodes, a key an acquire of unknown outcome left behind, a key
// that outlived what the operations imply), while the derived holds,
// stamped at the operations' own instants, stay where the design said.
// A part no longer than the slack is the reads' lag, and is left out.
func addObserved(lanes []NodeLane, observed [][]NodeHold, seen []bool) {
	for i := range lanes {
		if i >= len(observed) {
			break
		}
		lanes[i].Observed = seen[i]
		derived := newHoldIndex(lanes[i].Holds)
		for _, o := range observed[i] {
			for _, piece := range uncovered(o, derived.near(o)) {
				lanes[i].Holds = append(lanes[i].Holds, piece)
			}
		}
		slices.SortStableFunc(lanes[i].Holds, func(a, b NodeHold) int { return cmp.Compare(a.Start, b.Start) })
	}
}

// holdIndex finds, among a lane's derived holds, those that can cut an
// observed hold: of its key, and within observedSlack of it. A dense run
// has thousands of both on one lane, where looking at every pair would
// cost minutes of CPU.
type holdIndex struct {
	holds []NodeHold
	// byKey: each key's holds as indices into holds, by start, with the
	// latest end among each prefix of them.
	byKey map[string]keyHolds
}

type keyHolds struct {
	idx    []int
	maxEnd []time.Duration
}

func newHoldIndex(holds []NodeHold) holdIndex {
	x := holdIndex{holds: slices.Clone(holds), byKey: map[string]keyHolds{}}
	for i, h := range x.holds {
		k := x.byKey[h.Key]
		k.idx = append(k.idx, i)
		x.byKey[h.Key] = k
	}
	for key, k := range x.byKey {
		slices.SortStableFunc(k.idx, func(a, b int) int { return cmp.Compare(x.holds[a].Start, x.holds[b].Start) })
		k.maxEnd = make([]time.Duration, len(k.idx))
		for j, i := range k.idx {
			k.maxEnd[j] = x.holds[i].End
			if j > 0 {
				k.maxEnd[j] = max(k.maxEnd[j], k.maxEnd[j-1])
			}
		}
		x.byKey[key] = k
	}
	return x
}

// near is the derived holds of o's key that come within observedSlack of
// it, in the lane's order: the only ones uncovered can cut o with.
func (x holdIndex) near(o NodeHold) []NodeHold {
	k := x.byKey[o.Key]
	// those that start before o ends (widened by the slack)...
	hi, _ := slices.BinarySearchFunc(k.idx, o.End, func(i int, end time.Duration) int {
		return cmp.Compare(x.holds[i].Start-observedSlack, end)
	})
	var picked []int
	// ...and, walking back while some earlier one may still reach o, end
	// after it starts
	for j := hi - 1; j >= 0 && k.maxEnd[j]+observedSlack > o.Start; j-- {
		if i := k.idx[j]; x.holds[i].End+observedSlack > o.Start {
			picked = append(picked, i)
		}
	}
	slices.Sort(picked)
	out := make([]NodeHold, len(picked))
	for j, i := range picked {
		out[j] = x.holds[i]
	}
	return out
}

// uncovered cuts from o the spans of the derived holds of its key,
// widened by observedSlack; what is left of o stays within o.
func uncovered(o NodeHold, derived []NodeHold) []NodeHold {
	pieces := []NodeHold{o}
	for _, d := range derived {
		if d.Key != o.Key {
			continue
		}
		lo, hi := d.Start-observedSlack, d.End+observedSlack
		var next []NodeHold
		for _, p := range pieces {
			if hi <= p.Start || p.End <= lo {
				next = append(next, p)
				continue
			}
			if p.Start < lo {
				before := p
				before.End, before.Ended = min(d.Start, p.End), HoldTaken
				next = append(next, before)
			}
			if hi < p.End {
				after := p
				after.Start = max(d.End, p.Start)
				next = append(next, after)
			}
		}
		pieces = next
	}
	return slices.DeleteFunc(pieces, func(p NodeHold) bool {
		return p.End-p.Start <= observedSlack && (p.Start != o.Start || p.End != o.End)
	})
}
