package checker

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Check decides whether mutual exclusion held in h. It is a pure function
// of the history (plus wall-clock time for Elapsed and porcupine's
// timeout), so a history.jsonl re-checked offline gets the same verdict.
func Check(h sim.History, cfg Config) Result {
	began := time.Now()
	fi := faultWindows(h)
	end := historyEnd(h)

	log, err := resourceOps(h, cfg)
	ex := checkExclusion(log, err, cfg, fi, end)
	usable := &log
	if err != nil {
		usable = nil
	}
	ls, unknown := leases(h, end)
	checks := []CheckResult{
		ex.check,
		checkClaim(ls, unknown, fi),
		checkFencing(h, cfg, ls, usable, fi),
		checkLiveness(h),
	}
	return Result{
		Verdict:     overall(checks),
		Checks:      checks,
		SweepAgrees: ex.agrees,
		Ops:         len(h.Ops),
		Elapsed:     time.Since(began),
		info:        ex.info,
		fenced:      ex.fenced,
	}
}
