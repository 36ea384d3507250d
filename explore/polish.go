package explore

import (
	"context"
	"slices"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// Polishing: shrinking's last steps, which keep the faults a shrunk
// scenario has and give it the most margin for real time it can have and
// still fail in its own seed's run.

// polishMargin tries the steps that change the story's circumstances,
// never its faults (robustSteps), and keeps the one with the most margin
// for real time (the largest gain: a fault at any client's point, at a
// first visit, a longer hold) whose own run still fails, for at most
// polishRounds rounds. Shrinking stops at the first scenario that fails,
// often one at the edge of what fails, and real time only takes margin
// away: a polling lock favours its last holder (it asks again 5 ms after
// its release, the others every 50 ms or so), so which client's nth
// acquire comes, and when, depends on the machine on redis-server. A fault
// tied to one client's third visit with a short hold fails on redis-server
// only when that client wins that try; tied to any client's first visit
// with a longer hold, the same fault meets the same state on either
// backend.
func polishMargin(ctx context.Context, s *scenarios.Scenario, last outcome, algo string, target Finding, out *Shrunk) (*scenarios.Scenario, outcome) {
	for round := 0; round < polishRounds && out.Tries < maxShrinkTries && ctx.Err() == nil; round++ {
		var (
			next     *scenarios.Scenario
			nextLast outcome
			nextGain int
		)
		for _, st := range robustSteps(s) {
			if out.Tries >= maxShrinkTries || ctx.Err() != nil {
				break
			}
			if st.gain <= nextGain {
				continue
			}
			if _, err := st.s.Config(algo); err != nil {
				continue
			}
			out.Tries++
			if o, ok, _ := failsOnce(ctx, st.s, algo, target); ok {
				next, nextLast, nextGain = st.s, o, st.gain
			}
		}
		if next == nil {
			break
		}
		s, last = next, nextLast
		out.Steps++
	}
	return s, last
}

// fewerAfterPolish, the last step, drops the faults that polishing made
// unneeded: each fault in turn goes when the scenario without it still
// fails. A fault shrinking could not drop may have made up for
// circumstances polishing then changed: a setpx claim broken by a kill
// without data at client 1's third critical section kept a second kill
// at its second release; at any client's first critical section with a
// longer hold the first kill alone failed.
func fewerAfterPolish(ctx context.Context, s *scenarios.Scenario, last outcome, algo string, target Finding, out *Shrunk) (*scenarios.Scenario, outcome) {
	for i := 0; i < len(s.Faults) && len(s.Faults) > 1 && out.Tries < maxShrinkTries && ctx.Err() == nil; {
		c := clone(s)
		c.Faults = slices.Delete(c.Faults, i, i+1)
		dropReplicas(c)
		if _, err := c.Config(algo); err != nil || len(c.Faults) == 0 {
			i++
			continue
		}
		out.Tries++
		o, ok, _ := failsOnce(ctx, c, algo, target)
		if !ok {
			i++
			continue
		}
		s, last = c, o
		out.Steps++
		i = 0 // the rest again, without it
	}
	return s, last
}

// polishRounds bounds polishMargin; each round tries every robust step once.
const polishRounds = 3

// robustStep is one of polishMargin's candidates, with its gain: how many
// changes for real time's margin it makes.
type robustStep struct {
	s    *scenarios.Scenario
	gain int
}

// robustSteps are the changes polishMargin tries on s, none of which adds,
// removes, lengthens or moves a fault in a way that changes what it does:
// the hold widened (within a lease over maxHoldShare), the point faults of
// nodes and links triggered by any client's visits, and the point faults
// at their point's first visit; each of the three on every fault it
// applies to, and every combination of them (a setpx claim broken by a
// replication cut and a failover at client 0's third acquire needed all
// three at once), then the last two on one fault at a time.
func robustSteps(s *scenarios.Scenario) []robustStep {
	anyClient := func(f scenarios.FaultSpec) bool { return f.Client == nil && f.When != nil && f.When.Client != nil }
	toAny := func(f *scenarios.FaultSpec) { f.When.Client = nil }
	later := func(f scenarios.FaultSpec) bool { return f.When != nil && deref(f.When.Nth, 1) > 1 }
	toFirst := func(f *scenarios.FaultSpec) { f.When.Nth = ptr(1) }
	// applied is c with change made to every fault ok allows, and how
	// many; nil when none.
	applied := func(c *scenarios.Scenario, ok func(scenarios.FaultSpec) bool, change func(*scenarios.FaultSpec)) (*scenarios.Scenario, int) {
		out, n := clone(c), 0
		for i, f := range c.Faults {
			if ok(f) {
				change(&out.Faults[i])
				n++
			}
		}
		if n == 0 {
			return nil, 0
		}
		return out, n
	}
	var out []robustStep
	for mask := 1; mask < 8; mask++ {
		c, gain := s, 0
		if mask&1 != 0 {
			w := widenedWithMargin(c)
			if len(w) == 0 {
				continue
			}
			c, gain = w[0].s, 1
		}
		for _, step := range []struct {
			bit    int
			ok     func(scenarios.FaultSpec) bool
			change func(*scenarios.FaultSpec)
		}{{2, anyClient, toAny}, {4, later, toFirst}} {
			if mask&step.bit == 0 || c == nil {
				continue
			}
			var n int
			c, n = applied(c, step.ok, step.change)
			gain += n
		}
		if c != nil {
			out = append(out, robustStep{c, gain})
		}
	}
	for _, step := range []struct {
		ok     func(scenarios.FaultSpec) bool
		change func(*scenarios.FaultSpec)
	}{{anyClient, toAny}, {later, toFirst}} {
		var idx []int
		for i, f := range s.Faults {
			if step.ok(f) {
				idx = append(idx, i)
			}
		}
		if len(idx) < 2 {
			continue // the one fault is the step on every fault, above
		}
		for _, i := range idx {
			c := clone(s)
			step.change(&c.Faults[i])
			out = append(out, robustStep{c, 1})
		}
	}
	return out
}

// widenedWithMargin is s with the hold at a lease over maxHoldShare, the
// most strengthening gives a hold too, when that is longer than s's; nil
// when it is not. The steps that widen a scenario that already meets the
// rule are for real time, so they take the most room there is short of a
// holder still inside near its lease's end (another failure): four times
// 20 ms left a setpx failover's waiting client, which polls every 50 ms
// and up to half as much again, 5 ms to find the promoted replica ready
// while the holder was inside, and on redis-server it did so in 7 to 10
// runs of 10; with 125 ms, in 10.
func widenedWithMargin(s *scenarios.Scenario) []candidate {
	h := holdOf(s)
	ttl := ttlOf(s)
	nh := (ttl / maxHoldShare).Round(time.Millisecond)
	if nh <= h {
		return nil
	}
	c := clone(s)
	c.Hold = dur(nh)
	return []candidate{{s: c}}
}
