package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/history"
)

// Warnings says when a run tested little, in sentences, without touching
// its verdict: no acquire of any client succeeded (a fault that made every
// acquire fail, such as a delay longer than node_timeout); a fault while
// which every acquire failed and nobody held the lock; or some client
// never acquired the lock (or never tried) while others did. Each names the
// attempts and their outcomes, the most frequent error, and the faults that
// were on during every one of the failed attempts. clients is the run's
// client count (0: the clients the history names), so that a client that
// never reached its first acquire is counted too. Nil when every client
// acquired at least once.
//
// It reads h through the shared View (its fault windows), as the checks
// and the timeline do; summary.md, verdict.json and the command line all
// print what it returns.
func Warnings(h history.History, clients int) []string {
	type tally struct {
		attempts, ok, refused, unknown int
		errs                           map[string]int
		failed                         []*history.Op
	}
	byClient := map[int]*tally{}
	get := func(c int) *tally {
		if byClient[c] == nil {
			byClient[c] = &tally{errs: map[string]int{}}
		}
		return byClient[c]
	}
	var all tally
	all.errs = map[string]int{}
	// An attempt its client's crash cut short is the scenario's doing,
	// not the lock failing: it is not counted, and a client whose only
	// attempts ended so is not said to have never acquired.
	crashed := map[int]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Client == history.NoClient || op.Client < 0 {
			continue
		}
		t := get(op.Client)
		if op.Kind != history.KindAcquire {
			continue
		}
		if crashEnded(op) {
			crashed[op.Client] = true
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
				x.errs[errTail(op.Err)]++
			}
			x.failed = append(x.failed, op)
		}
	}
	for c := range clients {
		get(c)
	}
	if len(byClient) == 0 {
		return nil
	}
	v := Read(h)
	faults := v.Faults
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
		case all.attempts == 0 && len(crashed) > 0:
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
	var out []string
	// A fault under which nobody got the lock: every attempt made while it
	// was on failed, and no lease window overlapped it (so the failures
	// were not a holder's doing).
	for _, f := range faults {
		if f.End <= f.Start || slices.ContainsFunc(v.Leases, func(l LeaseWindow) bool { return l.Start < f.End && l.End > f.Start }) {
			continue
		}
		var t tally
		t.errs = map[string]int{}
		for i := range h.Ops {
			op := &h.Ops[i]
			if op.Kind != history.KindAcquire || op.Client < 0 || op.Call < f.Start || op.Call >= f.End || crashEnded(op) {
				continue
			}
			t.attempts++
			switch op.Outcome {
			case history.OK:
				t.ok++
			case history.Fail:
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
		s := fmt.Sprintf("no acquire succeeded while fault %d %s was on (%v–%v) and nobody held the lock then (%s: %s",
			f.ID, f.Desc, f.Start, f.End, plural(t.attempts, "attempt"), outcomes(t.refused, t.unknown))
		if e := commonest(t.errs); e != "" {
			s += fmt.Sprintf("; most often %q", e)
		}
		s += "): the run did not test the lock under that fault"
		if strings.HasPrefix(f.Desc, "delay") {
			s += " (is the delay longer than node_timeout?)"
		}
		out = append(out, s)
	}
	for _, c := range slices.Sorted(maps.Keys(byClient)) {
		t := byClient[c]
		switch {
		case t.ok > 0, t.attempts == 0 && crashed[c]:
		case t.attempts == 0:
			out = append(out, fmt.Sprintf("client %d never tried to acquire the lock: the run tested %s", c, others(len(byClient)-1)))
		default:
			out = append(out, fmt.Sprintf("client %d never acquired the lock (%s): the run tested %s", c, what(t), others(len(byClient)-1)))
		}
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
