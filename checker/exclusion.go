package checker

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// runPorcupine is porcupine itself. It is a variable so that tests can
// drive the timeout and disagreement paths deterministically. Without
// Verbose it skips the partial linearizations, which on a long unsafe
// history cost time quadratic in the length of the failing prefix.
var runPorcupine = func(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration, verbose bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
	if verbose {
		res, info := porcupine.CheckOperationsVerbose(m, ops, timeout)
		return res, &info
	}
	return porcupine.CheckOperationsTimeout(m, ops, timeout), nil
}

// exclusionResult is the exclusion check plus what Result and Visualize
// need from it.
type exclusionResult struct {
	check  CheckResult
	agrees bool
	info   *porcupine.LinearizationInfo
	fenced bool
}

// checkExclusion judges the resource log; err is why resourceOps could
// not build it.
func checkExclusion(log resourceLog, err error, cfg Config, fi faultIndex, end time.Duration) exclusionResult {
	res := exclusionResult{agrees: true}
	if err != nil {
		res.check = CheckResult{Name: nameExclusion, Verdict: Unknown, Detail: "bad history: " + err.Error()}
		return res
	}
	res.fenced = log.fenced
	what := "enter/exit"
	if log.fenced {
		what = "writes"
	}
	if len(log.all) == 0 {
		if cfg.Verbose {
			res.info = &porcupine.LinearizationInfo{} // Visualize still draws faults and leases
		}
		res.check = CheckResult{Name: nameExclusion, Verdict: Skipped, Detail: fmt.Sprintf(
			"%sno %s reached the resource (%d never did)", log.note, what, log.lost)}
		return res
	}
	scope := fmt.Sprintf("%s%d %s on %d key(s) in the resource's order (%d never reached it)",
		log.note, len(log.all), what, len(log.keys), log.lost)

	sw := sweepExclusion(log, fi, end)

	ops := make([]porcupine.Operation, len(log.all))
	for i, r := range log.all {
		ops[i] = porcupine.Operation{ClientId: r.client, Input: r, Call: r.call, Return: r.ret}
		if cfg.Verbose {
			ops[i].Metadata = r
		}
	}
	timeout := cfg.Timeout
	switch {
	case timeout == 0:
		timeout = defaultTimeout
	case timeout < 0:
		timeout = 0 // porcupine: unbounded
	}
	verdict, info := runPorcupine(exclusionModel(log.fenced), ops, timeout, cfg.Verbose)
	res.info = info

	sweepSays := "linearizable"
	if sw.unsafe() {
		sweepSays = fmt.Sprintf("%d violation(s), first: %s", sw.violations, sw.first)
	}
	c := CheckResult{Name: nameExclusion, Witnesses: sw.witnesses}
	switch {
	case verdict == porcupine.Unknown:
		c.Verdict = Unknown
		c.Detail = fmt.Sprintf("porcupine timed out after %v, so exclusion is not cross-checked (the sweep alone: %s); %s", timeout, sweepSays, scope)
	case (verdict == porcupine.Illegal) != sw.unsafe():
		res.agrees = false
		c.Verdict = Unknown
		c.Detail = fmt.Sprintf("porcupine and sweep disagree: porcupine says %s, the sweep says %s; this is a locksim bug, please report it with history.jsonl; %s", verdict, sweepSays, scope)
	case sw.unsafe():
		c.Verdict = Unsafe
		c.Detail = fmt.Sprintf("%d operation(s) broke exclusion at the resource; first: %s; %s", sw.violations, sw.first, scope)
	default:
		c.Verdict = Safe
		c.Detail = scope + "; porcupine and the sweep agree"
	}
	res.check = c
	return res
}
