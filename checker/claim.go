package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// claimSweep is the direct computation of the claim: lease windows (see
// leaseWindows) of different clients on one key must not overlap, unless
// both are read leases. Windows are half-open: a lease that ends at t does
// not overlap one that starts at t.
type claimSweep struct {
	overlaps  int
	first     string
	witnesses []Witness
	keys      int
}

func sweepClaim(v View, fi faultIndex) claimSweep {
	var r claimSweep
	byKey := map[string][]LeaseWindow{}
	var keys []string
	for _, w := range v.Leases {
		if _, ok := byKey[w.Key]; !ok {
			keys = append(keys, w.Key)
		}
		byKey[w.Key] = append(byKey[w.Key], w)
	}
	slices.Sort(keys)
	r.keys = len(keys)
	for _, key := range keys {
		kl := byKey[key]
		slices.SortStableFunc(kl, func(a, b LeaseWindow) int { return cmp.Compare(a.Start, b.Start) })
		var active []LeaseWindow
		for _, l := range kl {
			active = slices.DeleteFunc(active, func(a LeaseWindow) bool { return a.span().End <= l.Start })
			for _, a := range active {
				if a.Client == l.Client || (a.Read && l.Read) {
					continue
				}
				r.overlaps++
				until := "valid until " + a.End.String()
				if a.Ended == EndOpen {
					until = "never released"
				}
				note := fmt.Sprintf("client %d's lease began at %v while client %d's lease was %s", l.Client, l.Start, a.Client, until)
				if a.Vouched > l.Start {
					note += fmt.Sprintf(" (client %d's extend returning at %v said its lease had not lapsed)", a.Client, a.Vouched)
				}
				if r.first == "" {
					r.first = fmt.Sprintf("key %q: %s", key, note)
				}
				if len(r.witnesses) < maxWitnesses {
					r.witnesses = append(r.witnesses, fi.witness(vocab.CheckClaim, key, a.interval(), l.interval(), note))
				}
			}
			active = append(active, l)
		}
	}
	return r
}

// checkClaim decides the claim twice: porcupine over the lock service's
// history against the lease-mutex model (claim_model.go), and the direct
// window computation, which also builds the witnesses. The two must agree
// on every history; a disagreement is a locksim bug and gives unknown.
func checkClaim(h history.History, v View, cfg Config, fi faultIndex) (CheckResult, bool) {
	c := CheckResult{Name: vocab.CheckClaim}
	if len(v.Leases) == 0 {
		c.Verdict = vocab.Skipped
		c.Detail = fmt.Sprintf("no lease window: no acquire succeeded while its validity lasted (%d with unknown outcome)", v.UnknownAcquires)
		return c, true
	}
	sw := sweepClaim(v, fi)
	verdict, _ := runPorcupine(claimModel(), claimOps(h), porcupineTimeout(cfg), false)
	scope := fmt.Sprintf("%d lease window(s) on %d key(s); %d acquire(s) with unknown outcome make none", len(v.Leases), sw.keys, v.UnknownAcquires)
	sweepSays := "no overlap"
	if sw.overlaps > 0 {
		sweepSays = fmt.Sprintf("%d overlap(s), first: %s", sw.overlaps, sw.first)
	}
	switch {
	case verdict != porcupine.Unknown && (verdict == porcupine.Illegal) != (sw.overlaps > 0):
		c.Verdict = vocab.Unknown
		c.Detail = fmt.Sprintf("porcupine and the window computation disagree: porcupine says %s, the windows show %s; this is a locksim bug, please report it with history.jsonl; %s", verdict, sweepSays, scope)
		return c, false
	case sw.overlaps > 0:
		c.Verdict, c.Witnesses = vocab.Unsafe, sw.witnesses
		c.Detail = fmt.Sprintf("%d overlapping lease pair(s): the algorithm promised the lock to two clients at once; first: %s; %s", sw.overlaps, sw.first, scope)
	case verdict == porcupine.Unknown:
		c.Verdict = vocab.Unknown
		c.Detail = fmt.Sprintf("porcupine timed out after %v, so the windows' %s is not cross-checked; %s", porcupineTimeout(cfg), sweepSays, scope)
	default:
		c.Verdict = vocab.Safe
		c.Detail = scope + "; porcupine and the window computation agree"
	}
	return c, true
}
