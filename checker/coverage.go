package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
)

// Warnings says, in sentences and without touching the verdict, what a
// reader must know before trusting a run: an error the harness met
// starting or healing a fault (a restart, a rejoin after a failover), a
// fault still on when the run's duration ran out, and when the run tested
// little (see coverage). clients is the run's client count (0: the
// clients the history names). Nil when there is nothing to say.
//
// It reads h alone (through the shared View), so `locksim check` says the
// same as the run; summary.md, verdict.json and the command line all print
// what it returns.
func Warnings(h history.History, clients int) []string {
	return warnings(h, clients, nil)
}

// CheckWithWarnings is Check and Warnings of one history, reading its
// View once for both and computing the warnings beside the check.
func CheckWithWarnings(h history.History, cfg Config, clients int) (Result, []string) {
	r, ws, _ := CheckWithWarningsView(h, cfg, clients)
	return r, ws
}

// CheckWithWarningsView is CheckWithWarnings that also gives the View it
// read, for a caller that reads more of h (a report's lanes, a
// scenario's requirements); the caller reads it and does not change it.
func CheckWithWarningsView(h history.History, cfg Config, clients int) (Result, []string, View) {
	began := time.Now()
	v := Read(h)
	ws := make(chan []string, 1)
	go func() { ws <- warnings(h, clients, &v) }()
	r := check(h, cfg, v, began)
	return r, <-ws, v
}

// warnings is Warnings with h's View when the caller has read it (nil:
// warnings reads what it needs).
func warnings(h history.History, clients int, v *View) []string {
	errs, atEnd := faultWarnings(h)
	return append(append(errs, coverage(h, clients, v)...), atEnd...)
}

// faultWarnings: the harness's errors on fault records, and the faults the
// run's end healed before their own end (their for: or until:). A fault
// with no end of its own is meant to last the run and is not said to be
// still on, nor is one whose heal does nothing (a crash, a node clock
// jump).
func faultWarnings(h history.History) (errs, atEnd []string) {
	for _, op := range h.Ops {
		if op.Kind != history.KindFault {
			continue
		}
		switch {
		case op.Outcome == history.Fail && op.Err != "":
			errs = append(errs, fmt.Sprintf("harness error: fault %d %s did not start: %s", op.FaultID, op.Fault, op.Err))
		case op.Err != "":
			errs = append(errs, fmt.Sprintf("harness error: healing fault %d %s at %v failed: %s", op.FaultID, op.Fault, op.Return, op.Err))
		}
		if op.Cut && op.Outcome != history.Fail && (op.Target == nil || !op.Target.Kind.Attrs().NothingToHeal) {
			atEnd = append(atEnd, fmt.Sprintf("fault %d still on at the run's end (%v), before its own end: %s; only the liveness probe saw what followed its heal", op.FaultID, op.Return, op.Fault))
		}
	}
	return errs, atEnd
}

// coverage says when a run tested little: no acquire
// of any client succeeded (a fault that made every acquire fail, such as a
// delay longer than node_timeout); a fault while which no acquire was
// granted and nobody held the lock (an acquire sent during the fault but
// granted after its heal does not count: the grant is the moment the lock
// was got); or some client never acquired the lock (or never tried) while
// others did. Each names the attempts and their outcomes, the most
// frequent error, and the faults that were on during every one of the
// failed attempts. A client that never reached its first acquire is
// counted too when clients says it exists. v is h's View, nil when it
// is still to be read.
//
// A history may name a million clients, most of them once: a client costs
// its tally and its line, its errors and failed attempts are kept only
// when there are some and faults to cover them, and a client the history
// never names costs only its line.
func coverage(h history.History, clients int, v *View) []string {
	var faults []FaultWindow
	if v != nil {
		faults = v.Faults
	} else {
		faults = faultWindows(h)
	}
	byClient := newClientTallies(h)
	var all tally
	// An attempt its client's crash cut short is the scenario's doing,
	// not the lock failing: it is not counted, and a client whose only
	// attempts ended so is not said to have never acquired.
	crashed := false
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Client == history.NoClient || op.Client < 0 {
			continue
		}
		t := byClient.get(op.Client)
		if op.Kind != history.KindAcquire {
			continue
		}
		if crashEnded(op) {
			t.crashed, crashed = true, true
			continue
		}
		for _, x := range []*tally{t, &all} {
			x.attempts++
			switch op.Outcome {
			case history.OK:
				x.ok++
				continue
			case history.Fail:
				x.refused++
			default:
				x.unknown++
			}
			if op.Err != "" {
				if x.errs == nil {
					x.errs = map[string]int{}
				}
				x.errs[errTail(op.Err)]++
			}
			if len(faults) > 0 {
				x.failed = append(x.failed, op)
			}
		}
	}
	// absent counts the clients below clients that the history never
	// names: each is a client that never tried.
	absent := 0
	for c := range clients {
		if byClient.lookup(c) == nil {
			absent++
		}
	}
	named := byClient.named + absent
	if named == 0 {
		return nil
	}
	// what says how the attempts in t went and which faults covered them.
	what := func(t *tally) string {
		s := fmt.Sprintf("%s: %s", plural(t.attempts, "attempt"), outcomes(t.refused, t.unknown))
		if e := commonest(t.errs); e != "" {
			s += fmt.Sprintf("; most often %q", e)
		}
		if on := coveringFaults(faults, t.failed); len(on) > 0 {
			s += "; " + on + " during every one of them"
		}
		return s
	}
	if all.ok == 0 {
		switch {
		case all.attempts == 0 && crashed:
			return nil // every attempt ended in its client's crash
		case all.attempts == 0:
			return []string{"no client made an acquire attempt: the run tested nothing"}
		}
		s := fmt.Sprintf("no acquire succeeded (%s): no client ever held the lock, so the run tested only failures to get it", what(&all))
		if all.unknown > 0 {
			s += " (is a fault making every acquire fail, e.g. a delay longer than node_timeout?)"
		}
		return []string{s}
	}
	out := faultCoverage(h, faults, v)
	next := 0 // the next client below clients to say never tried, unless named
	neverTried := func(c int) {
		out = append(out, fmt.Sprintf("client %d never tried to acquire the lock: the run tested %s", c, others(named-1)))
	}
	byClient.each(func(c int, t *tally) {
		for ; next < min(c, clients); next++ {
			if byClient.lookup(next) == nil {
				neverTried(next)
			}
		}
		switch {
		case t.ok > 0, t.attempts == 0 && t.crashed:
		case t.attempts == 0:
			neverTried(c)
		default:
			out = append(out, fmt.Sprintf("client %d never acquired the lock (%s): the run tested %s", c, what(t), others(named-1)))
		}
	})
	for ; next < clients; next++ {
		if byClient.lookup(next) == nil {
			neverTried(next)
		}
	}
	return out
}

// tally is how a client's (or all clients') acquire attempts went: errs
// counts their errors by reason (nil: none), failed lists the failed
// ones when there are faults to cover them; crashed, that an attempt
// ended in the client's crash; named, that the history names the client.
type tally struct {
	attempts, ok, refused, unknown int
	errs                           map[string]int
	failed                         []*history.Op
	crashed, named                 bool
}

// clientTallies are the tallies of the clients a history names, indexed
// by client when the largest index is within twice the history's
// operations (a slice no larger than the history's own order), else in a
// map: a history of a million clients costs no hashing per operation,
// and one naming client 1<<40 no slice of that size.
type clientTallies struct {
	dense  []tally
	sparse map[int]*tally
	named  int
}

func newClientTallies(h history.History) *clientTallies {
	most := -1
	for i := range h.Ops {
		most = max(most, h.Ops[i].Client)
	}
	if most < 2*len(h.Ops)+1024 {
		return &clientTallies{dense: make([]tally, most+1)}
	}
	return &clientTallies{sparse: map[int]*tally{}}
}

// get is client c's tally (c >= 0), which the history names.
func (ts *clientTallies) get(c int) *tally {
	var t *tally
	if ts.sparse == nil {
		t = &ts.dense[c]
	} else if t = ts.sparse[c]; t == nil {
		t = &tally{}
		ts.sparse[c] = t
	}
	if !t.named {
		t.named = true
		ts.named++
	}
	return t
}

// lookup is client c's tally, nil when the history does not name c.
func (ts *clientTallies) lookup(c int) *tally {
	if ts.sparse != nil {
		return ts.sparse[c]
	}
	if c < len(ts.dense) && ts.dense[c].named {
		return &ts.dense[c]
	}
	return nil
}

// each calls f with every named client's tally, by client.
func (ts *clientTallies) each(f func(c int, t *tally)) {
	if ts.sparse != nil {
		for _, c := range slices.Sorted(maps.Keys(ts.sparse)) {
			f(c, ts.sparse[c])
		}
		return
	}
	for c := range ts.dense {
		if ts.dense[c].named {
			f(c, &ts.dense[c])
		}
	}
}

// faultCoverage says of each fault under which nobody got the lock: every
// attempt made while it was on failed, and no lease window overlapped it
// (so the failures were not a holder's doing). v is h's View, nil when it
// is still to be read.
func faultCoverage(h history.History, faults []FaultWindow, v *View) []string {
	if len(faults) == 0 {
		return nil
	}
	if v == nil {
		var leases []LeaseWindow
		leases, _, _ = leaseWindows(h, historyEnd(h))
		v = &View{Leases: leases}
	}
	var out []string
	// The clients' acquires and the lease windows, by start, each with its
	// longest span: a fault looks only at those that can meet it, so a run
	// with thousands of faults costs what they meet, not faults x ops.
	var acqs []*history.Op
	var longestAcq time.Duration
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind == history.KindAcquire && op.Client >= 0 {
			acqs = append(acqs, op)
			longestAcq = max(longestAcq, op.Return-op.Call)
		}
	}
	slices.SortStableFunc(acqs, func(a, b *history.Op) int { return cmp.Compare(a.Call, b.Call) })
	leases := slices.Clone(v.Leases)
	slices.SortFunc(leases, func(a, b LeaseWindow) int { return cmp.Compare(a.Start, b.Start) })
	var longestLease time.Duration
	for _, l := range leases {
		longestLease = max(longestLease, l.End-l.Start)
	}
	// A fault under which nobody got the lock: every attempt made while it
	// was on failed, and no lease window overlapped it (so the failures
	// were not a holder's doing).
	for _, f := range faults {
		if f.End <= f.Start {
			continue
		}
		from, _ := slices.BinarySearchFunc(leases, f.Start-longestLease, func(l LeaseWindow, t time.Duration) int { return cmp.Compare(l.Start, t) })
		if leaseDuring(leases[from:], f) {
			continue
		}
		// The attempts in flight while it was on; one counts as a success
		// only if it was granted (returned ok) while the fault was on.
		var t tally
		t.errs = map[string]int{}
		late := 0
		first, _ := slices.BinarySearchFunc(acqs, f.Start-longestAcq, func(op *history.Op, t time.Duration) int { return cmp.Compare(op.Call, t) })
		for _, op := range acqs[first:] {
			if op.Call >= f.End {
				break
			}
			if op.Return < f.Start || crashEnded(op) {
				continue
			}
			t.attempts++
			switch {
			case op.Outcome == history.OK && op.Return <= f.End:
				t.ok++
			case op.Outcome == history.OK:
				late++
			case op.Outcome == history.Fail:
				t.refused++
			default:
				t.unknown++
			}
			if op.Err != "" {
				t.errs[errTail(op.Err)]++
			}
		}
		if t.attempts == 0 || t.ok > 0 {
			continue
		}
		how := outcomes(t.refused, t.unknown)
		switch {
		case late == t.attempts:
			how = fmt.Sprintf("all %d granted only after its heal", late)
		case late > 0:
			how = fmt.Sprintf("%d granted only after its heal, %s", late, strings.TrimPrefix(outcomes(t.refused, t.unknown), "all "))
		}
		s := fmt.Sprintf("no acquire succeeded while fault %d %s was on (%v–%v) and nobody held the lock then (%s: %s",
			f.ID, f.Desc, f.Start, f.End, plural(t.attempts, "attempt"), how)
		if e := commonest(t.errs); e != "" {
			s += fmt.Sprintf("; most often %q", e)
		}
		s += "): the run did not test the lock under that fault"
		if f.Target != nil && f.Target.Kind.Attrs().Delays {
			s += " (is the delay longer than node_timeout?)"
		}
		out = append(out, s)
	}
	return out
}

// errTail is the reason at the end of an error chain ("setpx: acquire
// \"k\": outcome unknown: i/o timeout" -> "i/o timeout").
func errTail(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}

// commonest is the most frequent error (the first by name on a tie).
func commonest(errs map[string]int) string {
	best, n := "", 0
	for _, e := range slices.Sorted(maps.Keys(errs)) {
		if errs[e] > n {
			best, n = e, errs[e]
		}
	}
	return best
}

// coveringFaults names the faults that were on at the call of every op in
// ops ("" when none was, or ops is empty).
func coveringFaults(faults []FaultWindow, ops []*history.Op) string {
	if len(ops) == 0 {
		return ""
	}
	var on []string
	for _, f := range faults {
		if !slices.ContainsFunc(ops, func(op *history.Op) bool { return op.Call < f.Start || op.Call > f.End }) {
			on = append(on, fmt.Sprintf("fault %d %s", f.ID, f.Desc))
		}
	}
	switch len(on) {
	case 0:
		return ""
	case 1:
		return on[0] + " was on"
	}
	return strings.Join(on, ", ") + " were on"
}

func outcomes(refused, unknown int) string {
	switch {
	case refused == 0:
		return fmt.Sprintf("all %d with unknown outcome", unknown)
	case unknown == 0:
		return fmt.Sprintf("all %d failed", refused)
	}
	return fmt.Sprintf("%d failed, %d with unknown outcome", refused, unknown)
}

func others(n int) string {
	if n == 1 {
		return "only the other client's cycles"
	}
	return "only the other clients' cycles"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// crashEnded: the attempt ended because its client crashed (sim's
// ErrCrashed, "client crashed").
func crashEnded(op *history.Op) bool {
	return op.Outcome == history.Unknown && errTail(op.Err) == "client crashed"
}

// leaseDuring reports whether a lease window of leases, sorted by start,
// overlaps f.
func leaseDuring(leases []LeaseWindow, f FaultWindow) bool {
	for _, l := range leases {
		if l.Start >= f.End {
			return false
		}
		if l.End > f.Start {
			return true
		}
	}
	return false
}
