package explore

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
)

// drawWorkload draws what the clients of schedule j do, beside the faults:
// the watchdog on or off for a design that has one, the nesting depth (1
// to 3) of a reentrant design, the share of read holds of a read/write
// design and the hold (below, near or above the TTL). A bug in a renewal
// or in an inner unlock shows only in a workload that reaches it; a fixed
// workload never does.
//
// A design that can wait for the unlock message (lock.Info.Notify) waits
// for it in half the schedules (options.wait: notify), polls in the
// others; drawn last, so that the other fields are what they are without
// it.
//
// It draws from its own source, seeded by (cfg.Seed, j) like the faults'
// but apart from it, so that the faults of a schedule are the same with
// or without it. A field left at its default stays unset in the
// scenario, so that the written file says only what was drawn, and the
// shrinker can reset each drawn field to its default (workloadCandidates).
func drawWorkload(cfg Config, info lock.Info, s *scenarios.Scenario, j int) {
	rnd := rand.New(rand.NewPCG(cfg.Seed^0x3c6ef372fe94f82b, uint64(j)+0x30b))
	ttl := cfg.TTL
	between := func(lo, hi time.Duration) time.Duration {
		lo, hi = lo.Round(time.Millisecond), hi.Round(time.Millisecond)
		if hi <= lo {
			return lo
		}
		return lo + time.Duration(rnd.Int64N(int64((hi-lo)/time.Millisecond)+1))*time.Millisecond
	}
	watchdog := info.Watchdog && rnd.IntN(2) == 0
	if watchdog {
		s.Options.Watchdog = ptr(true)
	}
	if info.Reentrant {
		if n := 1 + rnd.IntN(3); n > 1 {
			s.Nest = ptr(n)
		}
	}
	if info.ReadWrite {
		ratios := []float64{0, 0.25, 0.5, 0.75}
		if r := ratios[rnd.IntN(len(ratios))]; r > 0 {
			s.ReadRatio = ptr(r)
		}
	}
	// The hold: half the schedules keep the exploration's own; the others
	// hold near the TTL (a lease spent by a slow acquire or a short pause
	// ends inside the hold) or, with a watchdog that is meant to carry it,
	// past the TTL. Past the TTL without a watchdog every lock overlaps
	// its next holder, which says nothing of the design.
	switch r := rnd.IntN(4); {
	case r == 2:
		s.Hold = dur(between(ttl/2, ttl*49/50))
	case r == 3 && watchdog:
		s.Hold = dur(between(ttl*11/10, 2*ttl))
	case r == 3:
		s.Hold = dur(between(ttl/4, ttl/2))
	}
	if info.Notify && rnd.IntN(2) == 0 {
		s.Options.Wait = ptr(lock.WaitNotify.String())
	}
}

// workloadCandidates are the shrink steps of s's workload: each drawn
// field back to its default (no watchdog, no nesting, no reads, polled
// waits), one at a time. A hold is not reset: shrinking and polishing
// size it themselves (widened, polishRobust). The watchdog stays on under
// a hold past the TTL, which without it overlaps the next holder in any
// lock.
func workloadCandidates(s *scenarios.Scenario) []candidate {
	var out []candidate
	hold := holdOf(s)
	ttl := ttlOf(s)
	if s.Options.Watchdog != nil && hold < ttl {
		c := clone(s)
		c.Options.Watchdog = nil
		out = append(out, candidate{s: c})
	}
	if s.Nest != nil {
		c := clone(s)
		c.Nest = nil
		out = append(out, candidate{s: c})
		if *s.Nest > 2 {
			c := clone(s)
			c.Nest = ptr(*s.Nest - 1)
			out = append(out, candidate{s: c})
		}
	}
	if s.ReadRatio != nil {
		c := clone(s)
		c.ReadRatio = nil
		out = append(out, candidate{s: c})
	}
	if s.Options.Wait != nil {
		c := clone(s)
		c.Options.Wait = nil
		out = append(out, candidate{s: c})
	}
	return out
}

// workloadNote is summary.md's line on what the schedules of algo drew
// beside the faults.
func workloadNote(algo string) string {
	info, _ := lock.Lookup(algo)
	drawn := []string{"the hold (the world's, near the TTL or, with a watchdog, past it)"}
	if info.Watchdog {
		drawn = append(drawn, "the watchdog on or off")
	}
	if info.Reentrant {
		drawn = append(drawn, "nesting 1 to 3 deep")
	}
	if info.ReadWrite {
		drawn = append(drawn, "the share of read holds")
	}
	if info.Notify {
		drawn = append(drawn, "polling or waiting for the unlock message")
	}
	return "Workload drawn per schedule: " + strings.Join(drawn, ", ") + "; each scenario file says its own.\n\n"
}
