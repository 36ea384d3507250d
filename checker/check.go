package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// Check decides whether mutual exclusion held in h. It is a pure function
// of the history (plus wall-clock time for Elapsed and porcupine's
// timeout), so a history.jsonl re-checked offline gets the same verdict.
func Check(h history.History, cfg Config) Result {
	began := time.Now()
	return check(h, cfg, Read(h), began)
}

// check is Check over h's View v, read since began.
func check(h history.History, cfg Config, v View, began time.Time) Result {
	fi := faultIndex(v.Faults)

	log, err := resourceOps(h, cfg)
	ex := checkExclusion(h, log, err, cfg, fi, v.End)
	usable := &log
	if err != nil {
		usable = nil
	}
	claim, claimAgrees := checkClaim(h, v, cfg, fi)
	checks := []CheckResult{
		ex.check,
		claim,
		checkFencing(h, cfg, v, usable, fi),
		checkLiveness(h, v),
	}
	coverByFencing(checks, cfg)
	verdict, reason := overall(checks, v)
	return Result{
		Verdict:       verdict,
		Reason:        reason,
		TestedNothing: verdict == vocab.Unknown && nothingTested(checks, v),
		Checks:        checks,
		SweepAgrees:   ex.agrees && claimAgrees,
		Ops:           len(h.Ops),
		Elapsed:       time.Since(began),
		info:          ex.info,
		fenced:        ex.fenced,
	}
}

// coverByFencing judges a fenced design by what fencing promises: growing
// tokens that the resource enforces, not exclusive leases. When its leases
// overlapped (a node clock jump, a restart without fsync) but the tokens
// grew and the resource kept the writes apart, the data was protected: the
// claim reads "covered". When tokens repeated or went back, fencing is
// unsafe and the claim stays unsafe.
func coverByFencing(checks []CheckResult, cfg Config) {
	if !cfg.Fencing {
		return
	}
	ex, claim, fencing := &checks[0], &checks[1], &checks[2]
	if claim.Verdict == vocab.Unsafe && fencing.Verdict == vocab.Safe && ex.Verdict == vocab.Safe {
		claim.Verdict = vocab.Covered
		claim.Detail = "leases overlapped; covered by fencing (the tokens grew and the resource rejected the stale writes): " + claim.Detail
	}
}

// overall folds the per-check verdicts. A liveness failure, a deadlock or
// a starved client, makes the run deadlock. Safety outranks liveness: a run
// that both overlapped and deadlocked is reported as unsafe, because that
// is the finding a design review must not miss. A run that tested nothing
// (no lease was ever granted, or no check had anything to judge) is
// unknown, never safe; reason says why a verdict is unknown.
func overall(checks []CheckResult, v View) (vocab.Verdict, string) {
	var deadlock bool
	var unknown []string
	skipped := 0
	for _, c := range checks {
		switch c.Verdict {
		case vocab.Unsafe:
			if c.Name != vocab.CheckLiveness {
				return vocab.Unsafe, ""
			}
			deadlock = true // a starved client: liveness failed
		case vocab.Deadlock:
			deadlock = true
		case vocab.Unknown:
			unknown = append(unknown, c.Name)
		case vocab.Skipped:
			skipped++
		}
	}
	switch {
	case deadlock:
		return vocab.Deadlock, ""
	case len(v.Leases) == 0:
		return vocab.Unknown, fmt.Sprintf("no lease was granted (%d acquire(s) with unknown outcome): the run tested nothing", v.UnknownAcquires)
	case skipped == len(checks):
		return vocab.Unknown, "every check was skipped: the run tested nothing"
	case len(unknown) > 0:
		return vocab.Unknown, "could not decide: " + strings.Join(unknown, ", ")
	}
	return vocab.Safe, ""
}

// nothingTested reports whether a run had nothing to judge: no lease was
// ever granted, or every check was skipped. Such a run is unknown, never
// safe, and it is no finding about the lock either.
func nothingTested(checks []CheckResult, v View) bool {
	skipped := 0
	for _, c := range checks {
		if c.Verdict == vocab.Skipped {
			skipped++
		}
	}
	return len(v.Leases) == 0 || skipped == len(checks)
}
