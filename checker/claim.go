package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// lease is one ok acquire and the window in which its client was entitled
// to believe it held the lock: [acquire returned, min(release called,
// validity end)], the validity stretched by ok extends of the same token.
//
// Only ok acquires make leases. An acquire whose outcome is unknown made no
// promise to anyone: its client got no lease and does not act as a holder
// (whatever it does at the resource anyway is judged by exclusion). If it
// did take the lock at the servers, that can only make later acquires fail,
// never succeed; so every pair of clients that were promised the lock at
// once is a pair of ok acquires, and all of those are windows here.
type lease struct {
	client int
	key    string
	token  string
	fence  int64
	read   bool
	start  time.Duration // acquire returned
	end    time.Duration // release called, validity ended, or history ended
}

func (l lease) interval() Interval {
	return Interval{Client: l.client, Token: l.token, Fence: l.fence, Start: l.start, End: l.end}
}

type leaseID struct {
	client int
	key    string
	token  string
}

const forever = time.Duration(math.MaxInt64)

// leases pairs each ok acquire with the release that ended it. Releases
// pair last-in first-out per token, so a reentrant lock's outer acquire
// lasts until the outer release, and a nested acquire renews the levels
// already open. Empty windows (validity already over when
// the reply came) are dropped.
func leases(h sim.History, end time.Duration) (ls []lease, unknown int) {
	byID := map[leaseID][]*sim.Op{}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind == sim.KindAcquire && op.Outcome == sim.Unknown:
			unknown++
		case op.Kind == sim.KindAcquire && op.Outcome == sim.OK,
			op.Kind == sim.KindRelease,
			op.Kind == sim.KindExtend && op.Outcome == sim.OK:
			id := leaseID{op.Client, op.Key, op.Token}
			byID[id] = append(byID[id], op)
		}
	}
	ids := make([]leaseID, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b leaseID) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.client, b.client), cmp.Compare(a.token, b.token))
	})
	for _, id := range ids {
		evs := byID[id]
		// an acquire counts from its return, a release or extend from its
		// call
		at := func(e *sim.Op) time.Duration {
			if e.Kind == sim.KindAcquire {
				return e.Return
			}
			return e.Call
		}
		slices.SortStableFunc(evs, func(a, b *sim.Op) int { return cmp.Compare(at(a), at(b)) })
		type held struct {
			acq   *sim.Op
			valid time.Duration
		}
		var open []held // acquires not yet released, innermost last
		closeLease := func(o held, stop time.Duration) {
			l := lease{client: o.acq.Client, key: o.acq.Key, token: o.acq.Token, fence: o.acq.Fence,
				read: o.acq.Mode == "read", start: o.acq.Return, end: min(stop, o.valid)}
			if l.end == forever {
				l.end = max(end, l.start)
			}
			if l.end > l.start {
				ls = append(ls, l)
			}
		}
		// renew: an extend, or a nested acquire of the same hold (a
		// reentrant lock renews the whole hold), stretches every open level
		renew := func(until time.Duration) {
			for i := range open {
				if until == 0 {
					open[i].valid = forever
				} else {
					open[i].valid = max(open[i].valid, until)
				}
			}
		}
		for _, e := range evs {
			switch e.Kind {
			case sim.KindAcquire:
				renew(e.ValidUntil)
				valid := e.ValidUntil
				if valid == 0 {
					valid = forever
				}
				open = append(open, held{e, valid})
			case sim.KindExtend:
				renew(e.ValidUntil)
			case sim.KindRelease:
				if len(open) > 0 {
					closeLease(open[len(open)-1], e.Call)
					open = open[:len(open)-1]
				}
			}
		}
		for _, o := range open {
			closeLease(o, forever)
		}
	}
	return ls, unknown
}

// checkClaim reports leases of different clients on one key that overlap,
// unless both are read leases. Windows are half-open: a lease that ends at
// t does not overlap one that starts at t.
func checkClaim(ls []lease, unknown int, fi faultIndex) CheckResult {
	c := CheckResult{Name: nameClaim}
	if len(ls) == 0 {
		c.Verdict = Skipped
		c.Detail = fmt.Sprintf("no acquire succeeded (%d with unknown outcome)", unknown)
		return c
	}
	byKey := map[string][]lease{}
	var keys []string
	for _, l := range ls {
		if _, ok := byKey[l.key]; !ok {
			keys = append(keys, l.key)
		}
		byKey[l.key] = append(byKey[l.key], l)
	}
	slices.Sort(keys)
	overlaps := 0
	first := ""
	for _, key := range keys {
		kl := byKey[key]
		slices.SortStableFunc(kl, func(a, b lease) int { return cmp.Compare(a.start, b.start) })
		var active []lease
		for _, l := range kl {
			active = slices.DeleteFunc(active, func(a lease) bool { return a.end <= l.start })
			for _, a := range active {
				if a.client == l.client || (a.read && l.read) {
					continue
				}
				overlaps++
				note := fmt.Sprintf("client %d's acquire returned at %v while client %d's lease was valid until %v",
					l.client, l.start, a.client, a.end)
				if first == "" {
					first = fmt.Sprintf("key %q: %s", key, note)
				}
				if len(c.Witnesses) < maxWitnesses {
					c.Witnesses = append(c.Witnesses, fi.witness(nameClaim, key, a.interval(), l.interval(), note))
				}
			}
			active = append(active, l)
		}
	}
	scope := fmt.Sprintf("%d lease window(s) on %d key(s); %d acquire(s) with unknown outcome make none", len(ls), len(keys), unknown)
	if overlaps > 0 {
		c.Verdict = Unsafe
		c.Detail = fmt.Sprintf("%d overlapping lease pair(s): the algorithm promised the lock to two clients at once; first: %s; %s", overlaps, first, scope)
		return c
	}
	c.Verdict = Safe
	c.Detail = scope
	return c
}
