package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// checkLiveness reads the probes the harness runs after every fault healed,
// one per key: a lock that nobody can take any more (SETNX, then a crash
// before EXPIRE) is a deadlock, which no safety check can see. Every key's
// probe must have acquired. A probe that was refused until its bound is a
// deadlock; one that never got a definite answer (the nodes did not
// answer) makes liveness unknown: it is not a pass, and it is not a
// deadlock the lock caused. When a key was probed more than once, its last
// probe decides: it had the most time to recover.
//
// The run's own clients are judged too (Starved): a client that went on
// asking while the lock was free, past its patience, makes liveness
// unsafe even when the probe got the lock: a fresh polling client says
// nothing about a waiter that never wakes.
func checkLiveness(h history.History, v View) CheckResult {
	c := checkProbes(h)
	starved := Starved(h, v)
	if len(starved) == 0 || c.Verdict == vocab.Deadlock {
		return c
	}
	words := make([]string, len(starved))
	for i, s := range starved {
		words[i] = s.String()
		if i < maxWitnesses {
			c.Witnesses = append(c.Witnesses, Witness{Check: vocab.CheckLiveness, Key: s.Key,
				A:    Interval{Client: s.Client, Start: s.WaitFrom, End: s.WaitTo},
				B:    Interval{Client: s.Client, Start: s.FreeFrom, End: s.FreeTo},
				Note: "starved: " + s.String()})
		}
	}
	c.Verdict = vocab.Unsafe
	c.Detail = fmt.Sprintf("%d wait(s) starved: %s; %s", len(starved), strings.Join(words, "; "), c.Detail)
	return c
}

// checkProbes judges the liveness probes alone.
func checkProbes(h history.History) CheckResult {
	c := CheckResult{Name: vocab.CheckLiveness}
	last := map[string]*history.Op{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind == history.KindProbe && (last[op.Key] == nil || op.Call >= last[op.Key].Call) {
			last[op.Key] = op
		}
	}
	if len(last) == 0 {
		c.Verdict = vocab.Skipped
		c.Detail = "no liveness probe in the history"
		return c
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var stuck, undecided []string
	var slowest *history.Op
	for _, k := range keys {
		p := last[k]
		if p.Outcome != history.OK {
			s := fmt.Sprintf("key %q: probe called at %v ended %s after %v", k, p.Call, p.Outcome, p.Return-p.Call)
			if p.Err != "" {
				s += " (" + p.Err + ")"
			}
			if p.Outcome == history.Unknown {
				undecided = append(undecided, s)
			} else {
				stuck = append(stuck, s)
			}
			continue
		}
		if slowest == nil || p.Return-p.Call > slowest.Return-slowest.Call {
			slowest = p
		}
	}
	if len(stuck) > 0 {
		c.Verdict = vocab.Deadlock
		c.Detail = fmt.Sprintf("%d of %d key(s) could not be acquired after healing: %s", len(stuck), len(keys), strings.Join(stuck, "; "))
		return c
	}
	if len(undecided) > 0 {
		c.Verdict = vocab.Unknown
		c.Detail = fmt.Sprintf("%d of %d key(s) got no definite answer after healing: %s", len(undecided), len(keys), strings.Join(undecided, "; "))
		return c
	}
	c.Verdict = vocab.Safe
	c.Detail = fmt.Sprintf("the probe acquired all %d key(s); the slowest, %q, in %v", len(keys), slowest.Key, slowest.Return-slowest.Call)
	return c
}
