package explore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// maxShrinkTries bounds the candidates one shrink tries; each costs one to
// Reruns runs.
const maxShrinkTries = 200

// Rule is when a scenario still shows a failure: rerun i runs it with seed
// Seed+i, rerun 0 (its own seed, which `locksim run` plays) must fail, and
// at least Need of Reruns must fail the same check with the same verdict.
type Rule struct {
	Reruns, Need int
	Workers      int
}

// Reproduce reruns s (with its own seed s.Seed, 0 when unset) Rule.Reruns
// times in virtual time and counts the runs whose finding is the same as
// target. last is rerun 0's outcome.
func (r Rule) reproduce(ctx context.Context, s *scenarios.Scenario, algo string, target Finding) (k int, last outcome, err error) {
	seed := uint64(0)
	if s.Seed != nil {
		seed = *s.Seed
	}
	first, err := runOnce(ctx, s, algo, seed)
	if err != nil {
		return 0, first, err
	}
	if first.Same(target) {
		k = 1
	}
	var (
		mu       sync.Mutex
		fails    = 1 - k
		next     = 1
		firstErr error
		wg       sync.WaitGroup
	)
	for range max(r.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= r.Reruns || firstErr != nil || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				o, err := runOnce(ctx, s, algo, seed+uint64(i))
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				case o.Same(target):
					k++
				default:
					fails++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return k, first, firstErr
}

// passes reports whether k reproductions with rerun 0 failing pass the rule.
func (r Rule) passes(k int, first outcome, target Finding) bool {
	return first.Same(target) && k >= r.Need
}

// Shrunk is the result of Shrink.
type Shrunk struct {
	Scenario *scenarios.Scenario
	// Tries and Steps: candidates tried and kept.
	Tries, Steps int
	// Passed: the scenario given fails target's check in its own seed's
	// run, and the scenario returned does too (else it is the one given,
	// unchanged).
	Passed bool
	// Found is the final scenario's finding in its own seed's run.
	Found Finding
	// Unfired are the final scenario's faults (1-based) that did not act
	// in its own seed's run.
	Unfired []int
}

// failsOnce runs s once, with its own seed (s.Seed, 0 when unset), in
// virtual time, and reports whether it shows target. In virtual time a
// run is a function of its scenario and seed (the run's scheduler,
// vtime.Scheduler, fixes the order of everything that happens at one
// instant), so one run says all that ten runs of that seed would, and it
// is the run `locksim run` plays on the shrunk file.
func failsOnce(ctx context.Context, s *scenarios.Scenario, algo string, target Finding) (outcome, bool, error) {
	o, err := runOnce(ctx, s, algo, deref(s.Seed, 0))
	if err != nil {
		return o, false, err
	}
	return o, o.Same(target), nil
}

// Shrink makes s smaller while it keeps failing target's check: fewer
// faults, fewer clients and nodes, a shorter run, shorter faults, point
// triggers in place of times, smaller clock moves and delays. It tries one
// change at a time and keeps it when the changed scenario's own seed's
// run still fails, until no change is kept (or maxShrinkTries); then it
// gives the scenario the most margin for real time that still fails
// (polishMargin) and drops the faults that made unneeded
// (fewerAfterPolish). Each candidate runs once, in virtual time
// (failsOnce): a run in virtual time replays exactly, so one run says
// whether the candidate fails. A cancelled ctx ends it with what it has.
func Shrink(ctx context.Context, s *scenarios.Scenario, algo string, target Finding) (Shrunk, error) {
	last, ok, err := failsOnce(ctx, s, algo, target)
	if err != nil {
		return Shrunk{Scenario: s}, err
	}
	out := Shrunk{Scenario: s, Found: last.Finding, Unfired: unfiredOf(last), Passed: ok}
	if !ok {
		return out, nil
	}
	cur := s
	for out.Tries < maxShrinkTries && ctx.Err() == nil {
		kept := false
		cands := candidates(cur, algo, last)
		cands = append(cands, fewerWithWiderHold(cur, cands)...)
		for _, cd := range cands {
			if out.Tries >= maxShrinkTries || ctx.Err() != nil {
				break
			}
			c, probe := cd.s, cd.probe
			if probe == nil {
				probe = c
			}
			if _, err := c.Config(algo); err != nil {
				continue // not a valid scenario: not a candidate
			}
			if _, err := probe.Config(algo); err != nil {
				continue
			}
			out.Tries++
			o, ok, err := failsOnce(ctx, probe, algo, target)
			if err != nil && ctx.Err() != nil {
				break
			}
			if !ok {
				continue // it no longer fails, or could not play
			}
			if probe != c {
				// The probe, with less margin, failed; the candidate
				// itself is kept, and its own run must fail too (it is
				// what `locksim run` plays, and what the next
				// candidates are read from).
				if o, ok, err = failsOnce(ctx, c, algo, target); !ok {
					if err != nil && ctx.Err() != nil {
						break
					}
					continue
				}
			}
			cur, last, kept = c, o, true
			out.Steps++
			break
		}
		if !kept {
			break
		}
	}
	polished := out.Steps
	cur, last = polishMargin(ctx, cur, last, algo, target, &out)
	if out.Steps > polished {
		cur, last = fewerAfterPolish(ctx, cur, last, algo, target, &out)
	}
	out.Scenario, out.Found, out.Unfired = cur, last.Finding, unfiredOf(last)
	return out, nil
}

// scaled is d times f, to the nanosecond.
func scaled(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }

func unfiredOf(o outcome) []int {
	if o.res == nil {
		return nil
	}
	return o.res.Unfired
}

// margin is the share of a shortened length that a shrunk scenario keeps
// in reserve: a length (a fault's for, a clock move, a delay, the run's
// duration) is lowered to L only when the scenario with margin*L fails
// too. In virtual time a pause 1 ms past the lease fails every time; on
// redis-server, in real time on a loaded machine, scheduling and network
// jitter of tens of milliseconds would make it a coin toss, so the shrunk
// scenario stays a quarter away from the edge.
const margin = 0.75

// minReserve is the least a shortened length keeps in reserve, whatever
// its size: a quarter of 4 ms is no room for a loaded machine's jitter.
// A replication cut shrunk to 3 ms held the write back only when the
// acquire's round trip took less (7 of 10 runs on redis-server).
const minReserve = 10 * time.Millisecond

// reserved is the probe's length for a length d longer than minReserve: d
// less its reserve (a quarter of it, at least minReserve); the sign of d (a
// clock moved back) is kept.
func reserved(d time.Duration) time.Duration {
	a := d.Abs()
	r := max(min(scaled(a, margin), a-minReserve), time.Millisecond)
	if d < 0 {
		return -r
	}
	return r
}

// candidate is one step of shrinking: s is what is kept when probe (s
// with less margin, or s itself when nil) still fails.
type candidate struct {
	s, probe *scenarios.Scenario
}

// candidates are the one-step changes of s, biggest first: fewer faults,
// then points in place of times (a point plays the same on every backend
// and under any load, a time only on a clock as exact as the simulation's),
// then fewer clients and nodes, a shorter run, and shorter or smaller
// faults.
func candidates(s *scenarios.Scenario, algo string, last outcome) []candidate {
	var out []candidate
	add := func(c *scenarios.Scenario) { out = append(out, candidate{s: c}) }
	// addShorter adds c with its probe: c again with set given reserved
	// in place of the identity for the new length.
	// A length too short to keep its reserve is no candidate.
	addShorter := func(c *scenarios.Scenario, length time.Duration, set func(p *scenarios.Scenario, fit func(time.Duration) time.Duration)) {
		if length.Abs() <= minReserve {
			return
		}
		set(c, func(d time.Duration) time.Duration { return d })
		p := clone(c)
		set(p, reserved)
		out = append(out, candidate{s: c, probe: p})
	}
	// Faults that fire together (a burst on several nodes): the group
	// alone, then the rest without it; one at a time would split it.
	for _, group := range sameTriggers(s.Faults) {
		if len(group) < len(s.Faults) {
			alone, rest := clone(s), clone(s)
			alone.Faults, rest.Faults = nil, nil
			for i, f := range clone(s).Faults {
				if slices.Contains(group, i) {
					alone.Faults = append(alone.Faults, f)
				} else {
					rest.Faults = append(rest.Faults, f)
				}
			}
			dropReplicas(alone)
			dropReplicas(rest)
			add(alone)
			add(rest)
		}
	}
	// One fault alone, as it is and, when it starts at a time, at the
	// points near that time: the biggest steps, and the only ones that
	// reach a one-fault cause when the found schedule fails only with
	// all its faults at their times.
	if len(s.Faults) > 2 {
		for i, f := range s.Faults {
			c := clone(s)
			c.Faults = []scenarios.FaultSpec{c.Faults[i]}
			dropReplicas(c)
			if len(c.Faults) == 0 {
				continue // the replication lag alone, which goes with the replica
			}
			add(c)
			if f.At == nil || last.res == nil {
				continue
			}
			for _, ps := range pointsBefore(last.res.History, f.At.D(), clientsOf(s)) {
				p := clone(c)
				p.Faults[0].At, p.Faults[0].When = nil, ps
				add(p)
			}
		}
	}
	// Fewer faults.
	for i := range s.Faults {
		c := clone(s)
		c.Faults = slices.Delete(c.Faults, i, i+1)
		dropReplicas(c)
		add(c)
	}
	// Points in place of times: first faults that start together (a
	// burst on several nodes) move together, so they stay one moment;
	// then each on its own.
	if last.res != nil {
		for _, group := range sameTimes(s.Faults) {
			at := s.Faults[group[0]].At.D()
			for _, ps := range pointsBefore(last.res.History, at, clientsOf(s)) {
				c := clone(s)
				for _, i := range group {
					w := *ps
					c.Faults[i].At, c.Faults[i].When = nil, &w
				}
				add(c)
			}
		}
	}
	for i, f := range s.Faults {
		if f.At == nil || last.res == nil {
			continue
		}
		for _, ps := range pointsBefore(last.res.History, f.At.D(), clientsOf(s)) {
			c := clone(s)
			c.Faults[i].At, c.Faults[i].When = nil, ps
			add(c)
		}
	}
	// Then every other point of the loop, each at its first visit and its
	// last before the time: a pause that broke exclusion when its time happened to
	// fall inside a critical section becomes a pause at after-enter,
	// which the last point before the time (a before-release, say) is not.
	for i, f := range s.Faults {
		if f.At == nil || last.res == nil {
			continue
		}
		near := pointsBefore(last.res.History, f.At.D(), clientsOf(s))
		for _, ps := range everyPointBefore(last.res.History, f.At.D(), clientsOf(s)) {
			// Its first visit too: a late visit may not come in every
			// rerun, and the earlier-visit step needs a point to start.
			first := *ps
			first.Nth = ptr(1)
			for _, p := range []*scenarios.PointSpec{&first, ps} {
				if slices.ContainsFunc(near, func(n *scenarios.PointSpec) bool { return samePoint(n, p) }) {
					continue
				}
				near = append(near, p)
				c := clone(s)
				c.Faults[i].At, c.Faults[i].When = nil, p
				add(c)
			}
		}
	}
	// Fewer clients: the last one goes, with the faults that name it.
	if n := clientsOf(s); n > 1 {
		add(withoutClient(s, n-1))
	}
	// Fewer nodes.
	if info, _ := lock.Lookup(algo); info.MultiNode {
		if n := nodesOf(s); n > 1 {
			add(withoutNode(s, n-1))
		}
	}
	// A shorter run: a half, then three quarters.
	if d := durationOf(s); d > 200*time.Millisecond {
		for _, nd := range []time.Duration{d / 2, d * 3 / 4} {
			addShorter(clone(s), nd, func(c *scenarios.Scenario, fit func(time.Duration) time.Duration) {
				c.Duration = dur(fit(nd).Round(10 * time.Millisecond))
			})
		}
	}
	// Shorter faults, earlier points, smaller moves.
	for i, f := range s.Faults {
		if f.Until != nil && f.For != nil {
			c := clone(s)
			c.Faults[i].Until = nil
			add(c)
		}
		if f.For == nil && f.Until == nil && lasts(f.Kind) {
			// A fault that lasted until the clients stopped: a bounded one.
			c := clone(s)
			c.Faults[i].For = dur((durationOf(s) / 2).Round(time.Millisecond))
			add(c)
		}
		if f.For != nil && f.For.D() >= 2*time.Millisecond {
			half := f.For.D() / 2
			addShorter(clone(s), half, func(c *scenarios.Scenario, fit func(time.Duration) time.Duration) {
				c.Faults[i].For = dur(max(fit(half).Round(time.Millisecond), time.Millisecond))
			})
		}
		if f.When != nil {
			// An earlier visit: the first, halfway, the one before.
			n := deref(f.When.Nth, 1)
			var tried []int
			for _, m := range []int{1, n / 2, n - 1} {
				if m >= 1 && m < n && !slices.Contains(tried, m) {
					tried = append(tried, m)
					c := clone(s)
					c.Faults[i].When.Nth = ptr(m)
					add(c)
				}
			}
		}
		for _, field := range []**scenarios.Duration{&f.By, &f.Offset, &f.Latency} {
			if *field == nil || (**field).D().Abs() < 20*time.Millisecond {
				continue
			}
			half := (**field).D() / 2
			addShorter(clone(s), half, func(c *scenarios.Scenario, fit func(time.Duration) time.Duration) {
				v := dur(fit(half).Round(time.Millisecond))
				switch field {
				case &f.By:
					c.Faults[i].By = v
				case &f.Offset:
					c.Faults[i].Offset = v
				case &f.Latency:
					c.Faults[i].Latency = v
				}
			})
		}
		if f.RestartAfter != nil && f.RestartAfter.D() > 0 {
			c := clone(s)
			c.Faults[i].RestartAfter = dur(0)
			add(c)
		}
	}
	return append(out, workloadCandidates(s)...)
}

// widenHold is how much longer stretched holds the lock.
const widenHold = 4

// fewerWithWiderHold are the candidates among cands that have fewer faults
// than s, each widened: tried after every plain candidate, they let a
// fault go that only made up for a short hold. A setpx lease broken by a
// restart without data needs the other client to ask while its holder is
// inside; with a 20 ms hold a second kill that kept that client retrying
// at the right moment was part of the cause, and shrinking could not drop
// it, though one kill and a longer hold fail in every run. The hold is no
// fault: a scenario with fewer faults and a longer hold is the smaller
// story.
func fewerWithWiderHold(s *scenarios.Scenario, cands []candidate) []candidate {
	var out []candidate
	for _, c := range cands {
		if len(c.s.Faults) >= len(s.Faults) {
			continue
		}
		out = append(out, widenedWithMargin(c.s)...)
	}
	return out
}

// sameTriggers are the groups of two or more faults (indexes) that fire
// together: at the same time, or at the same visit of the same point.
func sameTriggers(fs []scenarios.FaultSpec) [][]int {
	key := func(f scenarios.FaultSpec) string {
		switch {
		case f.At != nil:
			return "at " + f.At.D().String()
		case f.When != nil:
			return fmt.Sprintf("when %d %s %d", deref(f.When.Client, deref(f.Client, -1)), f.When.Point, deref(f.When.Nth, 1))
		}
		return ""
	}
	var out [][]int
	done := map[int]bool{}
	for i, f := range fs {
		k := key(f)
		if k == "" || done[i] {
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(fs); j++ {
			if key(fs[j]) == k {
				group = append(group, j)
				done[j] = true
			}
		}
		if len(group) > 1 {
			out = append(out, group)
		}
	}
	return out
}

// sameTimes are the groups of two or more faults (indexes) that start at
// the same time, in order of their first fault.
func sameTimes(fs []scenarios.FaultSpec) [][]int {
	var out [][]int
	done := map[int]bool{}
	for i, f := range fs {
		if f.At == nil || done[i] {
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(fs); j++ {
			if fs[j].At != nil && fs[j].At.D() == f.At.D() {
				group = append(group, j)
				done[j] = true
			}
		}
		if len(group) > 1 {
			out = append(out, group)
		}
	}
	return out
}

// lasts reports whether a fault of kind can end (for, until): not one
// whose heal undoes nothing (a crash, a node clock's jump) nor one that
// acts at an instant (a failover).
func lasts(kind vocab.Kind) bool {
	a := kind.Attrs()
	return !a.NothingToHeal && a.Span != vocab.SpanInstant
}

// pointsBefore are point triggers near true time at: for each client, the
// last loop point it reached at or before at (as its history shows), with
// the count that makes it that visit.
func pointsBefore(h history.History, at time.Duration, clients int) []*scenarios.PointSpec {
	var out []*scenarios.PointSpec
	for c := range clients {
		var best *scenarios.PointSpec
		var bestAt time.Duration = -1
		visitsBefore(h, at, c, func(ps *scenarios.PointSpec, t time.Duration) {
			if t >= bestAt {
				best, bestAt = ps, t
			}
		})
		if best != nil {
			out = append(out, best)
		}
	}
	return out
}

// everyPointBefore are, for each client and each loop point, its last
// visit at or before true time at, latest first.
func everyPointBefore(h history.History, at time.Duration, clients int) []*scenarios.PointSpec {
	type visit struct {
		ps *scenarios.PointSpec
		at time.Duration
	}
	var out []visit
	for c := range clients {
		last := map[string]visit{}
		visitsBefore(h, at, c, func(ps *scenarios.PointSpec, t time.Duration) {
			last[ps.Point] = visit{ps, t}
		})
		for _, name := range LoopPoints {
			if v, ok := last[name]; ok {
				out = append(out, v)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b visit) int { return cmp.Compare(b.at, a.at) })
	ps := make([]*scenarios.PointSpec, len(out))
	for i, v := range out {
		ps[i] = v.ps
	}
	return ps
}

// visitsBefore calls f, in history order, for each loop point client c
// reached at or before true time at, as a trigger naming that visit.
func visitsBefore(h history.History, at time.Duration, c int, f func(ps *scenarios.PointSpec, t time.Duration)) {
	counts := map[string]int{}
	for _, op := range h.Ops {
		if op.Client != c {
			continue
		}
		for _, pt := range opPoints(op) {
			if pt.at > at {
				continue
			}
			counts[pt.name]++
			f(&scenarios.PointSpec{Client: ptr(c), Point: pt.name, Nth: ptr(counts[pt.name])}, pt.at)
		}
	}
}

func samePoint(a, b *scenarios.PointSpec) bool {
	return deref(a.Client, -1) == deref(b.Client, -1) && a.Point == b.Point && deref(a.Nth, 1) == deref(b.Nth, 1)
}

type stamped struct {
	name string
	at   time.Duration
}

// opPoints maps a client's operation to the loop points it passes: an
// acquire is called at before-acquire and returns at after-acquire (when
// it was granted), a check returns at after-check, an enter at
// after-enter, an exit is called at before-exit, a release at
// before-release.
func opPoints(op history.Op) []stamped {
	switch op.Kind {
	case history.KindAcquire:
		out := []stamped{{string(vocab.PointBeforeAcquire), op.Call}}
		if op.Outcome == history.OK {
			out = append(out, stamped{string(vocab.PointAfterAcquire), op.Return})
		}
		return out
	case history.KindCheck:
		return []stamped{{string(vocab.PointAfterCheck), op.Return}}
	case history.KindEnter:
		return []stamped{{string(vocab.PointAfterEnter), op.Return}}
	case history.KindExit:
		return []stamped{{string(vocab.PointBeforeExit), op.Call}}
	case history.KindRelease:
		return []stamped{{string(vocab.PointBeforeRelease), op.Call}}
	}
	return nil
}

// withoutClient drops client n and the faults that name it; a trigger's
// until on it goes, the fault stays.
func withoutClient(s *scenarios.Scenario, n int) *scenarios.Scenario {
	c := clone(s)
	c.Clients = ptr(n)
	var kept []scenarios.FaultSpec
	for _, f := range c.Faults {
		if (f.Client != nil && *f.Client == n) || (f.When != nil && f.When.Client != nil && *f.When.Client == n) {
			continue
		}
		if f.Until != nil && f.Until.Client != nil && *f.Until.Client == n {
			f.Until = nil
		}
		kept = append(kept, f)
	}
	c.Faults = kept
	dropReplicas(c)
	return c
}

// withoutNode drops node n and the faults that name it.
func withoutNode(s *scenarios.Scenario, n int) *scenarios.Scenario {
	c := clone(s)
	c.Nodes = ptr(n)
	var kept []scenarios.FaultSpec
	for _, f := range c.Faults {
		if f.Node != nil && *f.Node == n {
			continue
		}
		kept = append(kept, f)
	}
	c.Faults = kept
	return c
}

// dropReplicas removes the replica and the replication delay when no
// failover is left to need them.
func dropReplicas(c *scenarios.Scenario) {
	if c.Replicas == nil || slices.ContainsFunc(c.Faults, func(f scenarios.FaultSpec) bool { return f.Kind.Attrs().Promotes }) {
		return
	}
	c.Replicas = nil
	c.Faults = slices.DeleteFunc(c.Faults, func(f scenarios.FaultSpec) bool {
		return len(f.Groups) > 0 && slices.ContainsFunc(f.Groups, func(g []string) bool { return slices.Contains(g, "r0") })
	})
}

// clone copies s deeply enough for a candidate to change its faults.
func clone(s *scenarios.Scenario) *scenarios.Scenario {
	c := *s
	c.Faults = make([]scenarios.FaultSpec, len(s.Faults))
	for i, f := range s.Faults {
		if f.When != nil {
			w := *f.When
			f.When = &w
		}
		if f.Until != nil {
			u := *f.Until
			f.Until = &u
		}
		c.Faults[i] = f
	}
	return &c
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
