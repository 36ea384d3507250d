package explore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/locksim/locksim/scenarios"
)

// scheduler gives the sweep its schedules and learns what each run
// reached: random draws (Generate), steered toward unreached (point, kind)
// pairs unless Config.Unguided, or the bounded sweep's singles and pairs
// (Config.Exhaustive).
type scheduler struct {
	cfg    Config
	points []string
	reach  *reach
	guide  *guide      // random and guided
	plan   *sweepPlan  // exhaustive
	tiers  *sweepTiers // exhaustive: what each tier ran and found
	order  *pairOrder  // exhaustive: the pairs in the order they run
	mu     sync.Mutex  // guards order
	began  time.Time
}

// newScheduler makes cfg's scheduler. For a sweep it bounds cfg.Runs by
// the sweep's schedules: every single when neither Runs nor For is set,
// else singles then pairs until the budget ends.
func newScheduler(ctx context.Context, cfg Config, points []string) (*scheduler, Config) {
	sc := &scheduler{cfg: cfg, points: points, reach: newReach(cfg, points), began: time.Now()}
	if !cfg.Exhaustive {
		if !cfg.Unguided {
			sc.guide = newGuide(cfg, points)
		}
		return sc, cfg
	}
	sc.plan = newSweepPlan(ctx, cfg, points)
	sc.tiers = &sweepTiers{singles: len(sc.plan.reps)}
	sc.order = &pairOrder{plan: sc.plan}
	total := len(sc.plan.reps) + int(min(sc.plan.pairs, int64(maxSweepRuns)))
	switch {
	case cfg.Runs == 0 && cfg.For == 0:
		cfg.Runs = len(sc.plan.reps)
	case cfg.Runs == 0 || cfg.Runs > total:
		cfg.Runs = total
	}
	sc.cfg = cfg
	return sc, cfg
}

// maxSweepRuns bounds the schedules a sweep can index (the pairs of a
// large world are more than any budget runs).
const maxSweepRuns = 1 << 40

// schedule is schedule j; a guided draw may wait (watching ctx) for the
// runs it is guided by.
func (sc *scheduler) schedule(ctx context.Context, j int) (*scenarios.Scenario, error) {
	switch {
	case sc.plan != nil:
		if j < len(sc.plan.reps) {
			return sc.plan.schedule(j, sc.plan.reps[j]), nil
		}
		sc.mu.Lock()
		a, b, ok := sc.order.at(j - len(sc.plan.reps))
		sc.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("schedule %d: past the sweep's %d schedules", j, len(sc.plan.reps)+int(sc.plan.pairs))
		}
		return sc.plan.schedule(j, a, b), nil
	case sc.guide != nil:
		return sc.guide.draw(ctx, j)
	}
	return Generate(sc.cfg, sc.points, j), nil
}

// ran is told how schedule j went (err: it did not play).
func (sc *scheduler) ran(j int, s *scenarios.Scenario, o outcome, err error) {
	var reached [][2]string
	played := err == nil && o.res != nil && !o.res.Incomplete // an interrupted run is no result
	if played {
		reached = reachedBy(s, o.res.Unfired)
		sc.reach.add(reached)
	}
	if sc.guide != nil {
		sc.guide.ran(j, reached) // every schedule drawn counts down its batch
	}
	if sc.tiers != nil && played {
		sc.tiers.add(j, o)
	}
}

// pairOrder lists the sweep's pairs in the order they run: the triangle of
// unit pairs walked in the plan's affine order, each pair kept only when
// it is its orbit's representative (and not two failovers).
type pairOrder struct {
	plan  *sweepPlan
	pairs [][2]int
	next  uint64
}

// at is the q-th pair to run, found by walking the order as far as needed.
func (o *pairOrder) at(q int) (int, int, bool) {
	p := o.plan
	for len(o.pairs) <= q && o.next < p.perm.m {
		a, b := pairAt(p.perm.at(o.next))
		o.next++
		if p.isFailover(a) && p.isFailover(b) {
			continue
		}
		if c := p.canonicalPair(a, b); c == [2]int{a, b} || c == [2]int{b, a} {
			o.pairs = append(o.pairs, [2]int{a, b})
		}
	}
	if q >= len(o.pairs) {
		return 0, 0, false
	}
	return o.pairs[q][0], o.pairs[q][1], true
}

// modeFlag is the flag that names how cfg's schedules are made, as a
// shrunk scenario's doc quotes the command: " --exhaustive" for a sweep,
// " --unguided" for a random draw not steered, "" for the default.
func modeFlag(cfg Config) string {
	switch {
	case cfg.Exhaustive:
		return " --exhaustive"
	case cfg.Unguided:
		return " --unguided"
	}
	return ""
}
