package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// LoopPoints are the client loop's points a schedule may trigger at (the
// nesting points are reached only in the schedules drawn with nest > 1,
// so no fault waits for them).
var LoopPoints = []string{
	string(vocab.PointBeforeAcquire), string(vocab.PointAfterAcquire), string(vocab.PointAfterCheck),
	string(vocab.PointAfterEnter), string(vocab.PointBeforeExit), string(vocab.PointBeforeRelease),
}

// Generate draws schedule j of cfg (with defaults filled in) as a
// scenario: one to MaxFaults faults of cfg.Kinds on random clients, nodes
// and links, each triggered at a random time or when a random client
// reaches one of points for the first to third time, with a random length.
// On a multi-node design a node fault is sometimes a burst: the same
// fault on a majority of the nodes at one moment (burst).
// The clients' workload is drawn too (drawWorkload): the watchdog, the
// nesting, the reads and the hold, as far as the design has them.
// The draw depends on cfg.Seed, j, the world of cfg and points only, so it
// is the same on every machine and in every shard. The scenario's own seed
// is derived from (cfg.Seed, j) too.
//
// A design that uses one master (every design but the multi-node ones)
// gets one node: faults on other nodes could not reach it. A design that
// needs a replica (setpx-wait) gets one.
func Generate(cfg Config, points []string, j int) *scenarios.Scenario {
	rnd := rand.New(rand.NewPCG(cfg.Seed, uint64(j)+0x5eed))
	info, _ := lock.Lookup(cfg.Algorithm)
	nodes := cfg.Nodes
	if !info.MultiNode {
		nodes = 1
	}
	g := &gen{cfg: cfg, rnd: rnd, points: points, nodes: nodes}
	s := &scenarios.Scenario{
		Name:      fmt.Sprintf("explore-%s-s%d-%d", cfg.Algorithm, cfg.Seed, j),
		Doc:       fmt.Sprintf("schedule %d of locksim explore --seed %d for %s", j, cfg.Seed, cfg.Algorithm),
		Algorithm: scenarios.AlgorithmList{cfg.Algorithm},
		Options:   scenarios.Options{TTL: dur(cfg.TTL)},
		Nodes:     ptr(nodes),
		Clients:   ptr(cfg.Clients),
		Duration:  dur(cfg.Duration),
		Hold:      dur(cfg.Hold),
		Seed:      ptr(scheduleSeed(cfg.Seed, j)),
	}
	if info.NeedsReplica { // setpx-wait: a WAIT needs a replica to answer it
		s.Replicas = ptr(1)
	}
	failover := false
	n := 1 + rnd.IntN(cfg.MaxFaults)
	if slices.Equal(cfg.Kinds, []vocab.Kind{KindNone}) {
		n = 0
	}
	for len(s.Faults) < n {
		kind := cfg.Kinds[rnd.IntN(len(cfg.Kinds))]
		if kind.Attrs().Promotes {
			if failover { // one failover per schedule
				continue
			}
			failover = true
			s.Replicas = ptr(1)
			s.Faults = append(s.Faults, g.replicationCut())
		}
		if left := n - len(s.Faults); left >= 2 && nodes > 1 && onNodes(kind) && rnd.IntN(burstOdds) == 0 {
			s.Faults = append(s.Faults, g.burst(kind, min(nodes/2+1, left))...)
			continue
		}
		s.Faults = append(s.Faults, g.fault(kind))
	}
	if info.MultiNode {
		g.keepQuorum(s)
	}
	drawWorkload(cfg, info, s, j)
	return s
}

// replicationCut is what a failover loses: the replication link cut from
// a drawn moment (a time or a point) until the clients stop, so that the
// promoted replica holds the data as of that moment, as Redis's
// asynchronous replication leaves it when the link falls behind.
//
// A cut, not a delay: with a delay the replica's state at the failover is
// the master's of a lag ago, which on redis-server depends on how late
// each write really was. (Healing a latency on a link whose far end the
// failover killed can also deadlock toxiproxy, Shopify/toxiproxy#558, which
// would hang the confirmation; the network leaves such a proxy's toxics
// alone until its dead connections unwind, sim/network/settle.go, at the cost
// of a late heal.) A cut drops what it holds and plays the same on both
// backends.
func (g *gen) replicationCut() scenarios.FaultSpec {
	f := scenarios.FaultSpec{Kind: vocab.KindPartition, Groups: [][]string{{"r0"}, {"n0"}}}
	g.trigger(&f)
	return f
}

// keepQuorum bounds the node outages that would last the whole run (a
// kill without restart, a pause, neither with an end) past the number a
// quorum design can lose and still reach a majority: such a schedule could
// never be granted a lease, and the scenario checks refuse it.
func (g *gen) keepQuorum(s *scenarios.Scenario) {
	allowed := g.nodes - lock.Quorum(g.nodes)
	down := map[int]bool{}
	for i := range s.Faults {
		f := &s.Faults[i]
		forGood := f.Node != nil && f.For == nil && f.Until == nil &&
			downForGood(f.Kind, f.RestartAfter != nil)
		if !forGood || down[*f.Node] {
			continue
		}
		if len(down) < allowed {
			down[*f.Node] = true
			continue
		}
		f.For = dur(g.between(g.cfg.TTL/10, 3*g.cfg.TTL))
	}
}

// burstOdds: one node fault in burstOdds on a multi-node design is a
// burst. A quorum design breaks when a majority of its nodes lose or
// expire the key at once (several kill-nodes without data, clock jumps);
// independent draws put two node faults at one moment too rarely for a
// search of minutes to meet it, so a burst draws them together.
const burstOdds = 3

// onNodes reports whether a fault of kind acts on a node of its choice
// (a failover always hits the master).
func onNodes(kind vocab.Kind) bool {
	a := kind.Attrs()
	return (a.Hits == vocab.HitsNode || a.Hits == vocab.HitsNodeClock) && !a.Promotes
}

// burst draws one fault of kind and copies it onto k distinct nodes: the
// same trigger (a point, when there are points), the same length and size.
func (g *gen) burst(kind vocab.Kind, k int) []scenarios.FaultSpec {
	f := g.fault(kind)
	if f.At != nil && len(g.points) > 0 {
		// A burst at a time hits a holder only in the interleavings that
		// put one there then, and shrinking cannot make it a point
		// without splitting it; at a point it is one moment of the
		// client loop on every run.
		f.At, f.When = nil, g.point()
	}
	out := []scenarios.FaultSpec{f}
	for _, n := range g.rnd.Perm(g.nodes) {
		if len(out) == k {
			break
		}
		if n == *f.Node {
			continue
		}
		c := f
		c.Node = ptr(n)
		if f.When != nil {
			w := *f.When
			c.When = &w
		}
		if f.Until != nil {
			u := *f.Until
			c.Until = &u
		}
		out = append(out, c)
	}
	return out
}

// scheduleSeed is the simulation seed of schedule j: small enough to read,
// different for every (seed, j) in practice.
func scheduleSeed(seed uint64, j int) uint64 {
	x := seed*0x9e3779b97f4a7c15 + uint64(j)*0xbf58476d1ce4e5b9 + 1
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return x % 1_000_000_000
}

type gen struct {
	cfg    Config
	rnd    *rand.Rand
	points []string
	nodes  int
}

// between draws a whole number of milliseconds in [lo, hi].
func (g *gen) between(lo, hi time.Duration) time.Duration {
	lo, hi = lo.Round(time.Millisecond), hi.Round(time.Millisecond)
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(g.rnd.Int64N(int64((hi-lo)/time.Millisecond)+1))*time.Millisecond
}

func (g *gen) signed(d time.Duration) time.Duration {
	if g.rnd.IntN(2) == 0 {
		return -d
	}
	return d
}

// fault draws one fault of kind, its targets, trigger and length: its
// targets and sizes as the kind's registry entry draws them.
func (g *gen) fault(kind vocab.Kind) scenarios.FaultSpec {
	d := faults.Draw{Rnd: g.rnd, TTL: g.cfg.TTL, Between: g.between, Signed: g.signed, Latency: g.latency}
	d.Client, d.Node = g.rnd.IntN(g.cfg.Clients), g.rnd.IntN(g.nodes)
	f := scenarios.FaultSpec{Kind: kind}
	if e, ok := faults.Lookup(kind); ok && e.Explore != nil {
		sp := f.Spec()
		e.Explore(d, &sp)
		f.SetSpec(sp)
	}
	lasting := lasts(kind) // the kind can end (for, until)
	ttl := g.cfg.TTL
	g.trigger(&f)
	if lasting {
		switch r := g.rnd.IntN(10); {
		case r < 7:
			f.For = dur(g.between(ttl/10, 3*ttl))
		case r < 9 && len(g.points) > 0:
			f.Until = g.point()
			f.For = dur(g.between(ttl, 4*ttl))
		default: // until the clients stop
		}
	}
	return f
}

// latency draws a delay's latency, each way. Half the draws are slow but
// answered: a round trip of a fifth to nine tenths of the design's node
// timeout, so that the reply comes back late instead of timing out. Such
// an acquire takes a good part of the TTL (up to nearly half of it for a
// single-node design), which only a lease whose validity is measured from
// the send accounts for. The other half range over a tenth of the TTL to
// the TTL: a link slower than a command may wait.
func (g *gen) latency() time.Duration {
	ttl := g.cfg.TTL
	if g.rnd.IntN(2) == 0 {
		return g.between(ttl/10, ttl)
	}
	nt := sim.DefaultNodeTimeout(g.cfg.Algorithm, ttl)
	return g.between(nt/10, nt*9/20)
}

// trigger draws a time in the first 80% of the run or a point.
func (g *gen) trigger(f *scenarios.FaultSpec) {
	if len(g.points) == 0 || g.rnd.IntN(2) == 0 {
		f.At = dur(g.between(0, g.cfg.Duration*8/10))
		return
	}
	f.When = g.point()
}

func (g *gen) point() *scenarios.PointSpec {
	return &scenarios.PointSpec{
		Client: ptr(g.rnd.IntN(g.cfg.Clients)),
		Point:  g.points[g.rnd.IntN(len(g.points))],
		Nth:    ptr(1 + g.rnd.IntN(3)),
	}
}

func ptr[T any](v T) *T { return &v }

func dur(d time.Duration) *scenarios.Duration {
	v := scenarios.Duration(d)
	return &v
}

// downForGood reports whether a fault of kind without for or until takes
// its node away for the rest of the run: one that stops a node without a
// promotion and, if the node can restart on its own, is not told to.
func downForGood(kind vocab.Kind, restarts bool) bool {
	a := kind.Attrs()
	return a.StopsNode && !a.Promotes && (a.Span != vocab.SpanUntilRestart || !restarts)
}
