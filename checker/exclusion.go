package checker

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// runPorcupine is porcupine itself. It is a variable so that tests can
// drive the timeout and disagreement paths deterministically. Without
// Verbose it skips the partial linearizations, which on a long unsafe
// history cost time quadratic in the length of the failing prefix, and
// cuts partitions too long for porcupine at their quiescent points
// (checkLinearizable).
var runPorcupine = func(m porcupine.Model, ops []porcupine.Operation, timeout time.Duration, verbose bool) (porcupine.CheckResult, *porcupine.LinearizationInfo) {
	if verbose {
		res, info := porcupine.CheckOperationsVerbose(m, ops, timeout)
		return res, &info
	}
	return checkLinearizable(m, ops, timeout), nil
}

// exclusionResult is the exclusion check plus what Result and Visualize
// need from it.
type exclusionResult struct {
	check  CheckResult
	agrees bool
	info   *porcupine.LinearizationInfo
	fenced bool
}

// checkExclusion judges exclusion twice, on different data. The ground
// truth is the exact sweep of the resource's own serial log (At, Seq).
// The independent view is porcupine over what the clients saw: each
// enter, exit or write from the instant its client sent it to the instant
// the reply came back (open-ended when no reply came), against the same
// sequential specification of the resource. The resource applied every
// operation inside its client's interval, so its own order is one of the
// orders porcupine tries: when porcupine finds none legal, the sweep must
// have found an overlap. The converse need not hold (a delayed message
// blurs the clients' view), so porcupine legal with the sweep unsafe is
// unsafe; porcupine illegal with the sweep safe is a bug in locksim (a
// stamp outside its interval, a lost record) and gives unknown.
//
// err is why resourceOps could not build the log.
func checkExclusion(h history.History, log resourceLog, err error, cfg Config, fi faultIndex, end time.Duration) exclusionResult {
	res := exclusionResult{agrees: true}
	if err != nil {
		res.check = CheckResult{Name: vocab.CheckExclusion, Verdict: vocab.Unknown, Detail: "bad history: " + err.Error()}
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
		res.check = CheckResult{Name: vocab.CheckExclusion, Verdict: vocab.Skipped, Detail: fmt.Sprintf(
			"%sno %s reached the resource (%d never did)", log.note, what, log.lost)}
		return res
	}
	scope := fmt.Sprintf("%s%d %s on %d key(s) in the resource's order (%d never reached it)",
		log.note, len(log.all), what, len(log.keys), log.lost)

	sw := sweepExclusion(log, fi, end)
	ops := clientViewOps(h, log.fenced, end)
	verdict, info := runPorcupine(clientViewModel(log.fenced), ops, porcupineTimeout(cfg), cfg.Verbose)
	res.info = info

	sweepSays := "no overlap"
	if sw.unsafe() {
		sweepSays = fmt.Sprintf("%d violation(s), first: %s", sw.violations, sw.first)
	}
	c := CheckResult{Name: vocab.CheckExclusion, Witnesses: sw.witnesses}
	switch {
	case sw.unsafe():
		c.Verdict = vocab.Unsafe
		c.Detail = fmt.Sprintf("%d operation(s) broke exclusion at the resource; first: %s; %s; porcupine over the clients' view: %s",
			sw.violations, sw.first, scope, porcupineSays(verdict))
	case verdict == porcupine.Illegal:
		res.agrees = false
		c.Verdict = vocab.Unknown
		c.Detail = fmt.Sprintf("porcupine and the sweep disagree: porcupine finds no legal order of the clients' %s, the sweep of the resource's log finds %s; this is a locksim bug, please report it with history.jsonl; %s", what, sweepSays, scope)
	case verdict == porcupine.Unknown:
		c.Verdict = vocab.Unknown
		c.Detail = fmt.Sprintf("porcupine timed out after %v over the clients' view, so the sweep's %s is not cross-checked; %s", porcupineTimeout(cfg), sweepSays, scope)
	default:
		c.Verdict = vocab.Safe
		c.Detail = scope + "; porcupine over the clients' view agrees"
	}
	res.check = c
	return res
}

func porcupineSays(v porcupine.CheckResult) string {
	switch v {
	case porcupine.Illegal:
		return "no legal order either"
	case porcupine.Unknown:
		return "timed out"
	}
	return "a legal order exists (the clients' intervals blur what the resource saw)"
}

// clientOp is a resource operation as its client saw it.
func clientOp(op *history.Op) *resOp {
	return &resOp{kind: op.Kind, client: op.Client, key: op.Key, token: op.Token, fence: op.Fence,
		read: op.Mode == "read", accepted: op.Outcome == history.OK, unacked: op.Unacked}
}

// porcupineTimeout is Config.Timeout as porcupine reads it.
func porcupineTimeout(cfg Config) time.Duration {
	switch {
	case cfg.Timeout == 0:
		return defaultTimeout
	case cfg.Timeout < 0:
		return 0 // porcupine: unbounded
	}
	return cfg.Timeout
}

// clientViewOps are the resource operations as their clients saw them:
// from the send to the reply, open-ended (until after the history's end)
// when the client never saw the reply. Operations that never reached the
// resource had no effect anywhere and are left out, as the sweep leaves
// them out.
func clientViewOps(h history.History, fenced bool, end time.Duration) []porcupine.Operation {
	var ops []porcupine.Operation
	for i := range h.Ops {
		op := &h.Ops[i]
		judged := op.Kind == history.KindWrite
		if !fenced {
			judged = op.Kind == history.KindEnter || op.Kind == history.KindExit
		}
		if !judged || op.Seq <= 0 {
			continue
		}
		r := clientOp(op)
		ret := op.Return
		if op.Unacked {
			ret = end + 1
		}
		ops = append(ops, porcupine.Operation{ClientId: op.Client, Input: r, Call: int64(op.Call), Return: int64(ret), Metadata: op})
	}
	return ops
}
