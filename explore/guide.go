package explore

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// The guided draw. Schedule j is drawn as Generate draws it, then one
// fault of it is steered: it becomes a fault of kind k at the first visit
// of a client to point p, the pair (p, k) drawn with weight
// 1/(1 + reached + missed/2)^2, where reached counts the runs in which a
// fault of kind k started at p and missed the steered runs in which it did
// not. Pairs never reached are drawn most, and a pair that stays out of
// reach when steered fades.
//
// The counts a schedule is steered by are those of whole batches of this
// shard's schedules: shard-local index m = (j - shard)/shards falls in
// batch m/guideBatch, and batch k is steered by batches 0..k-2, all run to
// their end before the first of batch k is drawn (a worker waits for
// them; batch k-1 is left out so that it rarely has to). Counts add up in
// any order, so what steers j does not depend on which worker ran what
// when: for a given seed and shard layout, schedule j is the same on
// every machine, provided the earlier runs reached the same points, which
// runs in virtual time with a given seed do.
const guideBatch = 32

type guide struct {
	cfg    Config
	points []string
	pairs  [][2]string // every (point, kind) that can be reached
	nodes  int

	mu      sync.Mutex
	batches []*batch
	snaps   map[int]*guideCounts // by batch: the counts that steer it
	steered map[int][2]string    // by schedule: the pair it was steered to
}

// batch is what a batch of schedules reached, and whether it is done.
type batch struct {
	left   int
	counts guideCounts
	done   chan struct{}
}

type guideCounts struct {
	reached, missed map[[2]string]int
}

func newCounts() guideCounts {
	return guideCounts{reached: map[[2]string]int{}, missed: map[[2]string]int{}}
}

func newGuide(cfg Config, points []string) *guide {
	info, _ := lock.Lookup(cfg.Algorithm)
	g := &guide{cfg: cfg, points: points, nodes: cfg.Nodes, snaps: map[int]*guideCounts{}, steered: map[int][2]string{}}
	if !info.MultiNode {
		g.nodes = 1
	}
	if slices.Equal(cfg.Kinds, []vocab.Kind{KindNone}) {
		return g
	}
	for _, p := range points {
		for _, k := range cfg.Kinds {
			g.pairs = append(g.pairs, [2]string{p, string(k)})
		}
	}
	return g
}

// batchOf is the batch of schedule j in its shard.
func (g *guide) batchOf(j int) int {
	return (j - g.cfg.Shard) / g.cfg.Shards / guideBatch
}

// get returns batch b, made on first use.
func (g *guide) get(b int) *batch { // with mu held
	for len(g.batches) <= b {
		g.batches = append(g.batches, &batch{left: guideBatch, counts: newCounts(), done: make(chan struct{})})
	}
	return g.batches[b]
}

// counts waits for batches 0..k-2 to finish and returns their sum.
func (g *guide) counts(ctx context.Context, k int) (*guideCounts, error) {
	for b := 0; b <= k-2; b++ {
		g.mu.Lock()
		done := g.get(b).done
		g.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.snaps[k]; ok {
		return s, nil
	}
	sum := newCounts()
	for b := 0; b <= k-2; b++ {
		for p, n := range g.batches[b].counts.reached {
			sum.reached[p] += n
		}
		for p, n := range g.batches[b].counts.missed {
			sum.missed[p] += n
		}
	}
	g.snaps[k] = &sum
	return &sum, nil
}

// draw is schedule j, steered.
func (g *guide) draw(ctx context.Context, j int) (*scenarios.Scenario, error) {
	s := Generate(g.cfg, g.points, j)
	if len(g.pairs) == 0 {
		return s, nil
	}
	c, err := g.counts(ctx, g.batchOf(j))
	if err != nil {
		return nil, err
	}
	rnd := rand.New(rand.NewPCG(g.cfg.Seed^0x6d1de, uint64(j)+0x5eed))
	weights := make([]float64, len(g.pairs))
	total := 0.0
	for i, p := range g.pairs {
		d := 1 + float64(c.reached[p]) + float64(c.missed[p])/2
		weights[i] = 1 / (d * d)
		total += weights[i]
	}
	x := rnd.Float64() * total
	pick := len(g.pairs) - 1
	for i, w := range weights {
		if x < w {
			pick = i
			break
		}
		x -= w
	}
	pair := g.pairs[pick]
	g.steer(s, pair, rnd)
	g.mu.Lock()
	g.steered[j] = pair
	g.mu.Unlock()
	return s, nil
}

// steer makes one fault of s a fault of pair's kind at the first visit of
// a drawn client to pair's point: a failover already there is moved to
// the point; else the last fault (a failover and its cut excepted) gives
// its place, or the fault is added when that is one of them.
func (g *guide) steer(s *scenarios.Scenario, pair [2]string, rnd *rand.Rand) {
	gn := &gen{cfg: g.cfg, rnd: rnd, points: g.points, nodes: g.nodes}
	when := &scenarios.PointSpec{Client: ptr(rnd.IntN(g.cfg.Clients)), Point: pair[0], Nth: ptr(1)}
	kind := vocab.Kind(pair[1])
	if kind.Attrs().Promotes {
		for i := range s.Faults {
			if s.Faults[i].Kind.Attrs().Promotes {
				s.Faults[i].At, s.Faults[i].When = nil, when
				return
			}
		}
	}
	f := gn.fault(kind)
	f.At, f.When = nil, when
	last := len(s.Faults) - 1
	replace := last >= 0 && !s.Faults[last].Kind.Attrs().Promotes && s.Faults[last].Groups == nil
	if kind.Attrs().Promotes {
		s.Replicas = ptr(1)
		if replace {
			s.Faults = s.Faults[:last]
			replace = false
		}
		s.Faults = append(s.Faults, gn.replicationCut())
	}
	if replace {
		s.Faults[last] = f
	} else {
		s.Faults = append(s.Faults, f)
	}
	if g.nodes > 1 {
		gn.keepQuorum(s)
	}
}

// ran records what schedule j reached into its batch, and whether the
// pair it was steered to was among them.
func (g *guide) ran(j int, reached [][2]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.get(g.batchOf(j))
	for _, p := range reached {
		b.counts.reached[p]++
	}
	if p, ok := g.steered[j]; ok {
		delete(g.steered, j)
		if !slices.Contains(reached, p) {
			b.counts.missed[p]++
		}
	}
	b.left--
	if b.left == 0 {
		close(b.done)
	}
}
