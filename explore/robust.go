package explore

import (
	"context"
	"fmt"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// Confirm and robustify. Shrinking decides in virtual time, where a pause
// a margin past the lease fails every time. On redis-server, in real time,
// the same scenario meets scheduling and network jitter, Redis's own
// expiry cycle and a go-redis reconnect, and may fail only some of the
// time. A shrunk scenario that reproduces in fewer than Need of Reruns
// there is made stronger, a round at a time: every fault's length and
// size grows by half (pauses and partitions last longer, clocks jump
// further, delays grow), the run lengthened to match, and the result is
// kept only while it still meets the rule in virtual time; each round is
// confirmed on redis-server again, and the best one is the scenario
// written. The report keeps how the scenario as shrunk reproduced
// (Reproduced.AsShrunk) beside the final figures.

// robustRounds bounds the strengthening of one scenario: each round costs
// Reruns runs in virtual time and Reruns in real time on redis-server.
const robustRounds = 3

// strength is the factor a round grows every length and size by.
const strength = 1.5

// tally is k of n runs that failed the same check again; err says why the
// replays stopped early.
type tally struct {
	k, n int
	err  error
}

func (t tally) String() string {
	if t.err != nil {
		return fmt.Sprintf("%d/%d, then failed: %v", t.k, t.n, t.err)
	}
	return fmt.Sprintf("%d/%d", t.k, t.n)
}

// meets reports whether t meets r: at least Need of Reruns.
func (t tally) meets(r Rule) bool { return t.err == nil && t.n == r.Reruns && t.k >= r.Need }

// better reports whether t reproduced more often than u.
func (t tally) better(u tally) bool {
	if t.n == 0 || u.n == 0 {
		return t.n > 0
	}
	return float64(t.k)/float64(t.n) > float64(u.k)/float64(u.n)
}

// robustify strengthens s (which reproduced asShrunk on redis-server) up
// to robustRounds times while it still meets the rule in virtual time,
// confirms each round on redis-server, and returns the best scenario with
// v's reproduction figures and Strengthened set to it. A cancelled ctx
// ends it with the best so far.
func (fi *finisher) robustify(ctx context.Context, v *Violation, s *scenarios.Scenario, target Finding, asShrunk tally) *scenarios.Scenario {
	algo := fi.cfg.Algorithm
	shrunk := v.Reproduced
	v.Reproduced.AsShrunk = &shrunk
	best, bestRedis := s, asShrunk
	cur := s
	confirmed, why := 0, fmt.Sprintf("after %d rounds", robustRounds)
	for round := 1; round <= robustRounds && ctx.Err() == nil; round++ {
		c := strengthen(cur)
		if c == nil {
			why = "no fault has a length or a size to grow"
			break
		}
		k, first, err := fi.rule.reproduce(ctx, c, algo, target)
		if err == nil && !fi.rule.passes(k, first, target) {
			// Longer faults change what happens (a node down longer
			// than the hold), but a longer hold and run may still be
			// what real time needs: a lease broken while its holder is
			// inside shows on redis-server only if the holder is still
			// inside once a killed node is back.
			if h := stretched(cur); h != nil {
				if kh, fh, errh := fi.rule.reproduce(ctx, h, algo, target); errh == nil && fi.rule.passes(kh, fh, target) {
					c, k, first = h, kh, fh
				}
			}
		}
		if err != nil || !fi.rule.passes(k, first, target) {
			why = fmt.Sprintf("%.1fx stronger it no longer met the rule in virtual time (%d/%d)", pow(strength, round), k, fi.rule.Reruns)
			break
		}
		cur = c
		confirmed++
		rt := fi.confirmRedis(ctx, c, target)
		if ctx.Err() != nil {
			break
		}
		if rt.better(bestRedis) {
			best, bestRedis = c, rt
			v.Strengthened = round
			v.Reproduced.Virtual = fmt.Sprintf("%d/%d", k, fi.rule.Reruns)
			v.Reproduced.Redis = rt.String()
		}
		if rt.meets(fi.rule) || rt.err != nil {
			break
		}
	}
	if v.Strengthened == 0 {
		v.Reproduced.AsShrunk = nil // nothing stronger did better: the figures are the shrunk scenario's
		v.Note = joinNote(v.Note, fmt.Sprintf("reproduced %s on redis-server; not strengthened: %d stronger versions confirmed there, none did better; %s", asShrunk, confirmed, why))
	}
	return best
}

// strengthen returns s with every fault's length (for, restart_after) and
// size (a clock's by and offset, a delay's latency) times strength, the
// run times strength and at least longer by the most any length grew (so
// that a longer fault still ends inside it), and the hold times strength
// while it stays under a quarter of the lease; nil when no fault has a
// length or a size.
func strengthen(s *scenarios.Scenario) *scenarios.Scenario {
	c := clone(s)
	grew := false
	var added time.Duration
	grow := func(d **scenarios.Duration, lasts bool) {
		if *d == nil || (*d).D() == 0 {
			return
		}
		old := (*d).D()
		nd := scaled(old, strength).Round(time.Millisecond)
		*d = dur(nd)
		grew = true
		if lasts {
			added = max(added, nd-old)
		}
	}
	for i := range c.Faults {
		f := &c.Faults[i]
		grow(&f.For, true)
		grow(&f.RestartAfter, true)
		grow(&f.By, false)
		grow(&f.Offset, false)
		grow(&f.Latency, false)
	}
	if !grew {
		return nil
	}
	// The run and the hold grow too. In real time a node's restart, a
	// client's reconnect backoff and a loaded machine's scheduling cost
	// more than in virtual time, so a point's nth visit may come later or
	// not within the shrunk run at all (a setpx claim broken by a kill
	// without data at client 1's third critical section reproduced 10/10
	// in virtual time and 0/10 on redis-server, where the run ended
	// first); and a failure that needs another client to be granted the
	// lock while its holder is inside shows more often the longer the
	// holder stays, as long as the hold stays well inside the lease.
	d := durationOf(s)
	c.Duration = dur(max(scaled(d, strength), d+added).Round(10 * time.Millisecond))
	h := holdOf(s)
	ttl := ttlOf(s)
	if nh := scaled(h, strength).Round(time.Millisecond); nh <= ttl/maxHoldShare {
		c.Hold = dur(nh)
	}
	return c
}

// stretched is s with the faults as they are, the hold widenHold times as
// long (at most a quarter of the lease) and the run longer by half; nil
// when the hold cannot grow. The hold grows as widening grows it, not by
// half: a redlock claim broken by two nodes restarting empty reproduced
// 8/10 in virtual time with a 20 ms or an 80 ms hold but 3/10 with 30 ms,
// and 0/10 against 5/10 on redis-server with 20 and 80 ms.
func stretched(s *scenarios.Scenario) *scenarios.Scenario {
	h := holdOf(s)
	ttl := ttlOf(s)
	nh := min(h*widenHold, ttl/maxHoldShare).Round(time.Millisecond)
	if nh <= h {
		return nil
	}
	c := clone(s)
	c.Hold = dur(nh)
	d := durationOf(s)
	c.Duration = dur(scaled(d, strength).Round(10 * time.Millisecond))
	return c
}

// maxHoldShare: strengthening lets the hold grow up to a lease over
// maxHoldShare, far from the lease's end, which would be another failure.
const maxHoldShare = 4

func pow(x float64, n int) float64 {
	out := 1.0
	for range n {
		out *= x
	}
	return out
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
