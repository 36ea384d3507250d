package explore

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// The bounded sweep (Config.Exhaustive) runs every single-fault schedule
// of a design, then, while the budget lasts, pairs of them. A single is one
// fault: a kind the exploration draws from, a target the kind takes (a
// client, a node, a client's link to one node or to every node), a
// variant (its size and length: below and above the TTL, and around the
// validity's drift margin for the clock kinds) and a trigger (the visit
// 1..3 of a client to one of the design's points, or a time). Clients are
// alike, and so are the nodes of a multi-node design (it asks them all at
// once): two schedules that differ only by a renaming of clients (or of
// such nodes) are one, and only one of them runs.

// unit is one fault of the sweep, as small numbers so that renaming its
// clients and nodes is cheap.
type unit struct {
	kind    int8 // index into sweepPlan.kinds
	client  int8 // target client; -1: none
	node    int8 // target node; -1: none (a partition: the client's link to every node)
	variant int8 // index into the kind's variants
	point   int8 // index into sweepPlan.points; -1: a time trigger
	by      int8 // the client whose visit triggers it; -1 with a time trigger
	nth     int8 // the visit, 1..3; with a time trigger the index into sweepPlan.times
}

// sweepPlan is the sweep of one design: every single, its orbit
// representatives, and how the pairs are ordered.
type sweepPlan struct {
	cfg      Config
	points   []string
	kinds    []vocab.Kind
	nodes    int
	symNodes bool // renaming the nodes is a symmetry (multi-node designs)
	times    []time.Duration
	variants [][]faults.Variant // by kind
	targets  []map[[2]int8]int  // by kind: the index of each target

	units   []unit // every single, renamings included, in enumeration order
	offsets []int  // by kind: the index of its first unit
	reps    []int  // the singles that run: one per orbit under renaming

	pairsAll int64 // unordered pairs of distinct singles (not both failovers)
	pairs    int64 // of those, distinct up to renaming
	perm     affine
}

// Sweep times: from the start, and halfway through the run.
func sweepTimes(d time.Duration) []time.Duration {
	return []time.Duration{0, (d / 2).Round(time.Millisecond)}
}

// maxVisit is the last visit of a point a single triggers at.
const maxVisit = 3

// newSweepPlan enumerates the singles of cfg (with defaults) at points and
// counts the pairs (a count that ctx's end cuts short: the sweep then
// stops before it runs anything).
func newSweepPlan(ctx context.Context, cfg Config, points []string) *sweepPlan {
	info, _ := lock.Lookup(cfg.Algorithm)
	nodes := cfg.Nodes
	if !info.MultiNode {
		nodes = 1
	}
	p := &sweepPlan{cfg: cfg, points: points, nodes: nodes, symNodes: info.MultiNode,
		times: sweepTimes(cfg.Duration)}
	if !slices.Equal(cfg.Kinds, []vocab.Kind{KindNone}) {
		p.kinds = cfg.Kinds
	}
	p.variants = make([][]faults.Variant, len(p.kinds))
	p.targets = make([]map[[2]int8]int, len(p.kinds))
	for k, kind := range p.kinds {
		p.offsets = append(p.offsets, len(p.units))
		e, _ := faults.Lookup(kind)
		p.variants[k] = e.Variants(sweepSizes(cfg.TTL, driftMargin(cfg.TTL, info.MultiNode), sim.Defaults().Options.Drift))
		p.targets[k] = map[[2]int8]int{}
		for i, t := range e.Targets(cfg.Clients, nodes) {
			p.targets[k][t] = i
			for v := range p.variants[k] {
				for _, trig := range p.triggers() {
					u := trig
					u.kind, u.client, u.node, u.variant = int8(k), t[0], t[1], int8(v)
					p.units = append(p.units, u)
				}
			}
		}
	}
	for i, u := range p.units {
		if p.relabel(u, nil) == u {
			p.reps = append(p.reps, i)
		}
	}
	p.countPairs(ctx)
	p.perm = newAffine(uint64(p.pairsAll+p.failoverPairs()), cfg.Seed)
	return p
}

// indexOf is the index of u among the units, computed from the order
// newSweepPlan enumerates them in: by kind, target, variant, trigger.
func (p *sweepPlan) indexOf(u unit) int {
	clients, trigs := p.cfg.Clients, len(p.points)*p.cfg.Clients*maxVisit+len(p.times)
	target := p.targets[u.kind][[2]int8{u.client, u.node}]
	trig := len(p.points)*clients*maxVisit + int(u.nth)
	if u.point >= 0 {
		trig = (int(u.point)*clients+int(u.by))*maxVisit + int(u.nth) - 1
	}
	return p.offsets[u.kind] + (target*len(p.variants[u.kind])+int(u.variant))*trigs + trig
}

// driftMargin is what a lease's validity leaves off the TTL for clock
// drift: TTL*drift, and 2 ms more for Redlock's arithmetic.
func driftMargin(ttl time.Duration, multiNode bool) time.Duration {
	drift := sim.Defaults().Options.Drift
	if multiNode {
		return ttl - lock.RedlockValidity(ttl, 0, drift)
	}
	return ttl - lock.Validity(ttl, 0, drift)
}

// triggers lists the triggers of a single: each point by each client at
// visits 1..maxVisit, then each time.
func (p *sweepPlan) triggers() []unit {
	var out []unit
	for pt := range p.points {
		for c := range p.cfg.Clients {
			for n := 1; n <= maxVisit; n++ {
				out = append(out, unit{point: int8(pt), by: int8(c), nth: int8(n)})
			}
		}
	}
	for t := range p.times {
		out = append(out, unit{point: -1, by: -1, nth: int8(t)})
	}
	return out
}

// sweepSizes are the sizes a sweep's variants take: lengths of half and
// one and a half TTLs; clock steps and offsets of half and twice the drift
// margin and of one and a half TTLs (either way for a client's clock,
// forward for a node's); node clock rates off by half and twice the drift
// factor, and by 2x either way; delays of a tenth and a half of the TTL;
// kills restarting at once, after half and after one and a half TTLs,
// with and without their data; failovers losing every write and none.
// Each kind's registry entry says which it takes (faults.Entry.Variants).
func sweepSizes(ttl, margin time.Duration, drift float64) faults.Sizes {
	ms := func(d time.Duration) time.Duration { return max(d.Round(time.Millisecond), time.Millisecond) }
	return faults.Sizes{
		TTL:     ttl,
		Lengths: []time.Duration{ms(ttl / 2), ms(3 * ttl / 2)},
		Steps:   []time.Duration{ms(margin / 2), ms(2 * margin), ms(3 * ttl / 2)},
		Drift:   drift,
	}
}

// labels renames clients (and nodes, when they are alike) by first
// appearance: the first client a schedule names becomes 0, the next 1,
// and so on. Two schedules are the same up to renaming exactly when their
// units, renamed in order with one labels, are the same.
type labels struct {
	clients, nodes [64]int8 // old label -> new label + 1 (0: not yet named)
	nc, nn         int8
}

func rename(m *[64]int8, n *int8, x int8) int8 {
	if x < 0 {
		return x
	}
	if m[x] == 0 {
		*n++
		m[x] = *n
	}
	return m[x] - 1
}

// relabel renames u's clients (and nodes) under l, extending it; a nil l
// renames u alone.
func (p *sweepPlan) relabel(u unit, l *labels) unit {
	if l == nil {
		l = &labels{}
	}
	u.client = rename(&l.clients, &l.nc, u.client)
	u.by = rename(&l.clients, &l.nc, u.by)
	if p.symNodes {
		u.node = rename(&l.nodes, &l.nn, u.node)
	}
	return u
}

// canonicalPair is the representative of the unordered pair {a, b} (unit
// indexes): the smaller of the pairs renamed in either order.
func (p *sweepPlan) canonicalPair(a, b int) [2]int {
	key := func(x, y int) [2]int {
		var l labels
		return [2]int{p.indexOf(p.relabel(p.units[x], &l)), p.indexOf(p.relabel(p.units[y], &l))}
	}
	k1, k2 := key(a, b), key(b, a)
	if k2[0] < k1[0] || (k2[0] == k1[0] && k2[1] < k1[1]) {
		return k2
	}
	return k1
}

// isFailover reports whether unit i is a failover (a schedule has one at
// most).
func (p *sweepPlan) isFailover(i int) bool {
	return p.kinds[p.units[i].kind].Attrs().Promotes
}

// failoverPairs counts the unordered pairs of two failovers, which the
// pair tier leaves out.
func (p *sweepPlan) failoverPairs() int64 {
	var n int64
	for i := range p.units {
		if p.isFailover(i) {
			n++
		}
	}
	return n * (n - 1) / 2
}

// countPairs counts the unordered pairs of distinct singles (not two
// failovers) and how many are distinct up to renaming: an orbit is
// counted at its representative, the smaller of its two ordered renamed
// forms, whose first unit is a single's representative a. The form
// starting from b instead starts with b's own representative, so b's
// that is below a rule the pair out at once.
func (p *sweepPlan) countPairs(ctx context.Context) {
	s := int64(len(p.units))
	p.pairsAll = s*(s-1)/2 - p.failoverPairs()
	canon := make([]int, len(p.units))
	for i, u := range p.units {
		canon[i] = p.indexOf(p.relabel(u, nil))
	}
	for n, a := range p.reps {
		if n%64 == 0 && ctx.Err() != nil {
			return
		}
		var la labels
		p.relabel(p.units[a], &la)
		for b := range p.units {
			if b == a || canon[b] < a || (p.isFailover(a) && p.isFailover(b)) {
				continue
			}
			l := la
			if p.indexOf(p.relabel(p.units[b], &l)) != b {
				continue
			}
			if canon[b] == a && p.canonicalPair(a, b) != [2]int{a, b} {
				continue
			}
			p.pairs++
		}
	}
}

// pairAt decodes the k-th unordered pair (i < j) of the triangle
// j(j-1)/2 + i.
func pairAt(k uint64) (int, int) {
	j := (1 + isqrt(1+8*k)) / 2
	for j*(j-1)/2 > k {
		j--
	}
	for (j+1)*j/2 <= k {
		j++
	}
	return int(k - j*(j-1)/2), int(j)
}

func isqrt(x uint64) uint64 {
	r := uint64(0)
	for b := uint64(1) << 62; b > 0; b >>= 2 {
		if x >= r+b {
			x -= r + b
			r = r>>1 + b
		} else {
			r >>= 1
		}
	}
	return r
}

// affine is a permutation k -> (a*k + b) mod m of [0, m): the order the
// pairs run in, spread over every kind from the start rather than all the
// pairs of the first single first, and fixed by the seed.
type affine struct{ a, b, m uint64 }

func newAffine(m, seed uint64) affine {
	if m == 0 {
		return affine{m: 0}
	}
	a := uint64(float64(m)*0.6180339887) | 1
	for gcd(a%m, m) != 1 {
		a += 2
	}
	return affine{a: a % m, b: scheduleSeed(seed, 0) % m, m: m}
}

func (f affine) at(k uint64) uint64 {
	hi, lo := bits.Mul64(f.a, k)
	_, r := bits.Div64(hi%f.m, lo, f.m)
	return (r + f.b) % f.m
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// spec makes the fault (or, for a failover that loses its writes, the
// replication cut and the fault) of unit i.
func (p *sweepPlan) spec(i int) []scenarios.FaultSpec {
	u := p.units[i]
	kind := p.kinds[u.kind]
	f := scenarios.FaultSpec{Kind: kind}
	if u.client >= 0 {
		f.Client = ptr(int(u.client))
	}
	if u.node >= 0 {
		f.Node = ptr(int(u.node))
	}
	if u.point >= 0 {
		f.When = &scenarios.PointSpec{Client: ptr(int(u.by)), Point: p.points[u.point], Nth: ptr(int(u.nth))}
	} else {
		f.At = dur(p.times[u.nth])
	}
	v := p.variants[u.kind][u.variant]
	sp := f.Spec()
	v.Set(&sp)
	f.SetSpec(sp)
	if v.Cut {
		cut := scenarios.FaultSpec{Kind: vocab.KindPartition, Groups: [][]string{{"r0"}, {"n0"}}, At: dur(0)}
		return []scenarios.FaultSpec{cut, f}
	}
	return []scenarios.FaultSpec{f}
}

// schedule is the scenario of the units (one or two) as sweep index j.
func (p *sweepPlan) schedule(j int, units ...int) *scenarios.Scenario {
	cfg := p.cfg
	info, _ := lock.Lookup(cfg.Algorithm)
	s := &scenarios.Scenario{
		Name:      fmt.Sprintf("sweep-%s-s%d-%d", cfg.Algorithm, cfg.Seed, j),
		Doc:       fmt.Sprintf("schedule %d of locksim explore --exhaustive --seed %d for %s", j, cfg.Seed, cfg.Algorithm),
		Algorithm: scenarios.AlgorithmList{cfg.Algorithm},
		Options:   scenarios.Options{TTL: dur(cfg.TTL)},
		Nodes:     ptr(p.nodes),
		Clients:   ptr(cfg.Clients),
		Duration:  dur(cfg.Duration),
		Hold:      dur(cfg.Hold),
		Seed:      ptr(scheduleSeed(cfg.Seed, j)),
	}
	if info.NeedsReplica {
		s.Replicas = ptr(1)
	}
	for _, i := range units {
		if p.isFailover(i) {
			s.Replicas = ptr(1)
		}
		s.Faults = append(s.Faults, p.spec(i)...)
	}
	return s
}
