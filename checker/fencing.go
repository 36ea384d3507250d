package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// checkFencing checks the two halves of the fencing contract: the lock hands
// out strictly growing tokens (a repeated token, e.g. after a failover lost
// INCRs, lets two leases pass the resource's check), and the resource
// accepts writes only in non-decreasing token order (it did its job).
//
// A repeated token (two leases, one fence) is always wrong. A smaller token
// is wrong when a larger one was handed out by an acquire that returned
// before this one was called; acquires whose calls overlapped may have
// drawn their tokens at the servers in either order, so their order proves
// nothing (if both were granted while valid, the claim check reports it).
//
// log is the resource log the exclusion check used; nil when it was
// unusable, and then only the first half is checked.
func checkFencing(h history.History, cfg Config, v View, log *resourceLog, fi faultIndex) CheckResult {
	c := CheckResult{Name: vocab.CheckFencing}
	var fenced, okAcquires int
	for i := range h.Ops {
		op := &h.Ops[i]
		if (op.Kind == history.KindAcquire || op.Kind == history.KindWrite) && op.Fence > 0 {
			fenced++
		}
		if op.Kind == history.KindAcquire && op.Outcome == history.OK {
			okAcquires++
		}
	}
	if fenced == 0 {
		if cfg.Fencing && okAcquires > 0 {
			c.Verdict = vocab.Unknown
			c.Detail = fmt.Sprintf("fencing is on but none of %d ok acquires carried a fence", okAcquires)
			return c
		}
		c.Verdict = vocab.Skipped
		c.Detail = "no fencing tokens in the history"
		return c
	}

	var found int
	var first string
	report := func(key string, a, b Interval, note string) {
		found++
		if first == "" {
			first = fmt.Sprintf("key %q: %s", key, note)
		}
		if len(c.Witnesses) < maxWitnesses {
			c.Witnesses = append(c.Witnesses, fi.witness(vocab.CheckFencing, key, a, b, note))
		}
	}

	// 1. tokens handed out by the lock
	windows := map[leaseID]Interval{} // for witness intervals: each token's first window
	for _, l := range v.Leases {
		if _, ok := windows[leaseID{l.Client, l.Key, l.Token}]; !ok {
			windows[leaseID{l.Client, l.Key, l.Token}] = l.interval()
		}
	}
	byKey := map[string][]*history.Op{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind == history.KindAcquire && op.Outcome == history.OK && op.Fence > 0 {
			byKey[op.Key] = append(byKey[op.Key], op)
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	granted := 0
	for _, key := range keys {
		byReturn := byKey[key]
		granted += len(byReturn)
		slices.SortStableFunc(byReturn, func(a, b *history.Op) int { return cmp.Compare(a.Return, b.Return) })
		sameLease := func(a, b *history.Op) bool { return a.Client == b.Client && a.Token == b.Token }
		// a repeated fence is wrong whatever the timing: INCR never repeats
		firstWith := map[int64]*history.Op{}
		for _, op := range byReturn {
			a, ok := firstWith[op.Fence]
			if !ok {
				firstWith[op.Fence] = op
				continue
			}
			if !sameLease(a, op) { // the same lease again is a reentrant acquire
				report(key, acquireInterval(a, windows), acquireInterval(op, windows), fmt.Sprintf(
					"the lock's token repeated: client %d got fence %d at %v, as client %d did at %v",
					op.Client, op.Fence, op.Return, a.Client, a.Return))
			}
		}
		// a smaller fence is wrong only after a larger one was handed out
		// before this acquire was even called
		byCall := slices.Clone(byReturn)
		slices.SortStableFunc(byCall, func(a, b *history.Op) int { return cmp.Compare(a.Call, b.Call) })
		var top *history.Op // largest fence among acquires that returned before b's call
		j := 0
		for _, b := range byCall {
			for ; j < len(byReturn) && byReturn[j].Return < b.Call; j++ {
				if top == nil || byReturn[j].Fence > top.Fence {
					top = byReturn[j]
				}
			}
			if top != nil && top.Fence > b.Fence {
				report(key, acquireInterval(top, windows), acquireInterval(b, windows), fmt.Sprintf(
					"the lock's token went backwards: client %d got fence %d at %v after client %d got fence %d at %v",
					b.Client, b.Fence, b.Return, top.Client, top.Fence, top.Return))
			}
		}
	}

	// 2. writes the resource accepted
	accepted := 0
	if log != nil && log.fenced {
		for _, key := range log.keys {
			var top *resOp
			for _, w := range log.byKey[key] {
				if !w.accepted {
					continue
				}
				accepted++
				if top != nil && w.fence < top.fence {
					report(key, writeInterval(top), writeInterval(w), fmt.Sprintf(
						"the resource accepted client %d's write with fence %d at %v after accepting fence %d from client %d at %v",
						w.client, w.fence, w.at, top.fence, top.client, top.at))
					continue
				}
				if top == nil || w.fence > top.fence {
					top = w
				}
			}
		}
	}

	scope := fmt.Sprintf("%d fenced acquire(s), %d accepted write(s)", granted, accepted)
	if log == nil {
		scope += "; the resource log is unusable (see exclusion), writes not checked"
	}
	switch {
	case found > 0:
		c.Verdict = vocab.Unsafe
		c.Detail = fmt.Sprintf("%d token(s) out of order; first: %s; %s", found, first, scope)
	case log == nil:
		c.Verdict = vocab.Unknown
		c.Detail = scope
	default:
		c.Verdict = vocab.Safe
		c.Detail = scope
	}
	return c
}

func acquireInterval(op *history.Op, windows map[leaseID]Interval) Interval {
	if w, ok := windows[leaseID{op.Client, op.Key, op.Token}]; ok && w.Start == op.Return {
		return w
	}
	return Interval{Client: op.Client, Token: op.Token, Fence: op.Fence, Start: op.Return, End: op.Return}
}

func writeInterval(w *resOp) Interval {
	return Interval{Client: w.client, Token: w.token, Fence: w.fence, Start: w.at, End: w.at}
}
