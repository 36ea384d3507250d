package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// The singles of a small sweep, counted by hand, and what renaming
// removes: a client fault on client c triggered by client c' is the same
// as one on c' by c; on a multi-node design the node does not matter
// either; a fault at a time has no client to rename.
func TestSweepCounts(t *testing.T) {
	enter := []string{"after-enter"}
	for _, tc := range []struct {
		name        string
		cfg         Config
		units, reps int
		pairs       int64 // distinct up to renaming
	}{
		// 2 targets x 2 lengths x (1 point x 2 clients x 3 visits + 2
		// times) = 32; each has exactly one twin (its clients swapped),
		// so 16; of the 496 pairs, the 16 {u, twin(u)} are their own
		// swap, so (496 + 16) / 2 = 256.
		{"setpx pause-client", Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client"}}, 32, 16, 256},
		// 1 node x 6 variants x 8 triggers = 48; node faults at a time
		// (12) have no client to rename, those at a point (36) are
		// twins by the triggering client: 12 + 18 = 30.
		{"setpx kill-node", Config{Algorithm: "setpx", Kinds: []vocab.Kind{"kill-node"}}, 48, 30, -1},
		// 3 nodes x 6 x 8 = 144; renaming nodes too: at a point, orbits
		// of 2 clients x 3 nodes (108 / 6 = 18); at a time, of 3 nodes
		// (36 / 3 = 12).
		{"redlock kill-node", Config{Algorithm: "redlock", Kinds: []vocab.Kind{"kill-node"}}, 144, 30, -1},
		// A partition cuts a client from every node or from one: 2 x
		// (1 + 3) targets x 2 lengths x 8 = 128. Up to renaming, per
		// length: from every node, triggered by the same client, the
		// other, or at a time (3 + 3 + 2); from one node, the same 8.
		{"redlock partition", Config{Algorithm: "redlock", Kinds: []vocab.Kind{"partition"}}, 128, 2 * (8 + 8), -1},
		// A failover comes in two variants, on the master: 2 x 8 = 16,
		// those at a point twins by the triggering client (2 x (3 + 2)
		// = 10); pairs of two failovers are left out.
		{"setpx failover+pause", Config{Algorithm: "setpx", Kinds: []vocab.Kind{"failover", "pause-client"}}, 16 + 32, 10 + 16, -1},
		// Three clients: a client fault's trigger is its own client, one
		// other (whichever: renaming), or a time: 2 x (3 + 3 + 2).
		{"setpx pause-client 3 clients", Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client"}, Clients: 3}, 3 * 2 * (9 + 2), 2 * (3 + 3 + 2), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newSweepPlan(context.Background(), tc.cfg.withDefaults(), enter)
			assert.Len(t, p.units, tc.units, "singles with renamings")
			if tc.reps >= 0 {
				assert.Len(t, p.reps, tc.reps, "singles distinct up to renaming")
			}
			if tc.pairs >= 0 {
				assert.Equal(t, tc.pairs, p.pairs, "pairs distinct up to renaming")
			}
			for i, u := range p.units {
				require.Equal(t, i, p.indexOf(u), "the index of %+v", u)
			}
			reps, pairs := bruteOrbits(p)
			assert.Equal(t, reps, len(p.reps), "singles: brute force over every renaming")
			assert.Equal(t, pairs, p.pairs, "pairs: brute force over every renaming")
			n := int64(len(p.units))
			f := p.failoverPairs()
			assert.Equal(t, n*(n-1)/2-f, p.pairsAll)
		})
	}
}

// bruteOrbits counts the singles and pairs distinct up to renaming by
// applying every permutation of the clients (and of the nodes, on a
// multi-node design) to every single and pair.
func bruteOrbits(p *sweepPlan) (int, int64) {
	perms := func(n int) [][]int8 {
		var out [][]int8
		var rec func(cur []int8, used []bool)
		rec = func(cur []int8, used []bool) {
			if len(cur) == n {
				out = append(out, slices.Clone(cur))
				return
			}
			for i := range n {
				if !used[i] {
					used[i] = true
					rec(append(cur, int8(i)), used)
					used[i] = false
				}
			}
		}
		rec(nil, make([]bool, n))
		return out
	}
	cps, nps := perms(p.cfg.Clients), [][]int8{nil}
	if p.symNodes {
		nps = perms(p.nodes)
	}
	apply := func(u unit, cp, np []int8) int {
		m := func(x int8, perm []int8) int8 {
			if x < 0 || perm == nil {
				return x
			}
			return perm[x]
		}
		u.client, u.by, u.node = m(u.client, cp), m(u.by, cp), m(u.node, np)
		i := p.indexOf(u)
		if i < 0 || i >= len(p.units) || p.units[i] != u {
			panic(fmt.Sprintf("renamed unit %+v is not a single", u))
		}
		return i
	}
	singles := map[int]bool{}
	for i, u := range p.units {
		best := i
		for _, cp := range cps {
			for _, np := range nps {
				best = min(best, apply(u, cp, np))
			}
		}
		singles[best] = true
	}
	pairs := map[[2]int]bool{}
	for a := range p.units {
		for b := a + 1; b < len(p.units); b++ {
			if p.isFailover(a) && p.isFailover(b) {
				continue
			}
			best := [2]int{a, b}
			for _, cp := range cps {
				for _, np := range nps {
					x, y := apply(p.units[a], cp, np), apply(p.units[b], cp, np)
					k := [2]int{min(x, y), max(x, y)}
					if k[0] < best[0] || (k[0] == best[0] && k[1] < best[1]) {
						best = k
					}
				}
			}
			pairs[best] = true
		}
	}
	return len(singles), int64(len(pairs))
}

// Every single and the first pairs of the designs' sweeps are scenarios
// the checks accept, and the pairs run in an order that visits each
// orbit once.
func TestSweepSchedulesAreValid(t *testing.T) {
	for _, algo := range []string{"setpx", "redlock", "fenced", "setpx-wait"} {
		cfg := Config{Algorithm: algo}.withDefaults()
		p := newSweepPlan(context.Background(), cfg, append(slices.Clone(LoopPoints), "before-release-command"))
		sc := &scheduler{plan: p, order: &pairOrder{plan: p}}
		check := func(j int, s *scenarios.Scenario) {
			b, err := MarshalScenario(s)
			require.NoError(t, err)
			parsed, err := scenarios.Parse("sweep.yaml", b)
			require.NoError(t, err, "%s schedule %d:\n%s", algo, j, b)
			_, err = parsed.Config(algo)
			require.NoError(t, err, "%s schedule %d:\n%s", algo, j, b)
		}
		for i, u := range p.units {
			require.Equal(t, i, p.indexOf(u), "%s: the index of %+v", algo, u)
		}
		for j, i := range p.reps {
			s := p.schedule(j, i)
			check(j, s)
		}
		seen := map[[2]int]bool{}
		for q := range 300 {
			a, b, ok := sc.order.at(q)
			require.True(t, ok)
			c := p.canonicalPair(a, b)
			require.False(t, seen[c], "%s: pair %d repeats an orbit", algo, q)
			seen[c] = true
			check(len(p.reps)+q, p.schedule(len(p.reps)+q, a, b))
		}
	}
}

// The whole order of a small sweep's pairs is every orbit once.
func TestPairOrderVisitsEveryOrbitOnce(t *testing.T) {
	p := newSweepPlan(context.Background(), Config{Algorithm: "redlock", Kinds: []vocab.Kind{"kill-node", "pause-client"}}.withDefaults(), []string{"after-enter"})
	o := &pairOrder{plan: p}
	seen := map[[2]int]bool{}
	for q := 0; ; q++ {
		a, b, ok := o.at(q)
		if !ok {
			break
		}
		c := p.canonicalPair(a, b)
		require.False(t, seen[c], "pair %d repeats an orbit", q)
		seen[c] = true
	}
	assert.Equal(t, p.pairs, int64(len(seen)))
	for k := range uint64(1000) {
		a, b := pairAt(k)
		require.Less(t, a, b)
		require.Equal(t, k, uint64(b)*uint64(b-1)/2+uint64(a))
	}
}

// A sweep with a tiny budget: every single of setpx under pause-client
// runs, then pairs until the budget; the pauses longer than the lease
// break it and the statement counts them; a budget short of the singles
// states no bound.
func TestSweepRunsSinglesThenPairs(t *testing.T) {
	base := Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client"}, Exhaustive: true, NoShrink: true, Workers: 2,
		Duration: time.Second}
	cfg := base
	points, err := Points(hostCtx(t), cfg.withDefaults())
	require.NoError(t, err)
	singles := len(newSweepPlan(context.Background(), cfg.withDefaults(), points).reps)
	cfg.Runs = singles + 5
	rep, err := Explore(hostCtx(t), cfg)
	require.NoError(t, err)
	require.NotNil(t, rep.Sweep)
	sw := rep.Sweep
	assert.Equal(t, singles+5, rep.Runs)
	assert.Equal(t, int64(singles), sw.Singles.Exist)
	assert.Equal(t, singles, sw.Singles.Ran)
	assert.Equal(t, 5, sw.Pairs.Ran)
	require.NotZero(t, sw.Singles.Violating, "a pause of 1.5 TTLs at after-enter breaks setpx")
	assert.Contains(t, sw.Statement, fmt.Sprintf("%d of its %d single-fault schedules (pause-client only) at its %d points break it", sw.Singles.Violating, singles, len(points)))
	assert.Contains(t, sw.Statement, "exclusion unsafe [pause-client]")
	assert.NotEmpty(t, rep.Violations, "violations go through the keep path")
	assert.Contains(t, rep.Markdown(), "## Bounded sweep")

	short := base
	short.Runs = 10
	rep, err = Explore(hostCtx(t), short)
	require.NoError(t, err)
	assert.Equal(t, 10, rep.Sweep.Singles.Ran)
	assert.Contains(t, rep.Sweep.Statement, "no bound is stated")
}

// A design no single pause breaks gets the bound as a statement.
func TestSweepStatesTheBound(t *testing.T) {
	cfg := Config{Algorithm: "fenced", Kinds: []vocab.Kind{"crash-client"}, Exhaustive: true, NoShrink: true, Workers: 2,
		Duration: time.Second}
	rep, err := Explore(hostCtx(t), cfg)
	require.NoError(t, err)
	require.Empty(t, rep.Violations)
	sw := rep.Sweep
	assert.Equal(t, int64(sw.Singles.Ran), sw.Singles.Exist)
	assert.Equal(t, fmt.Sprintf("fenced: no violation under any single crash-client fault at any of its %d points (%d schedules; 2 clients, 1 node, ttl 500ms)",
		len(rep.Points), sw.Singles.Exist), sw.Statement)
	assert.Zero(t, sw.Pairs.Ran)
	assert.True(t, strings.HasPrefix(rep.Markdown(), "# locksim explore: fenced"))
}

// Merging the shards of one sweep adds up their runs and states the bound
// once every single ran in some shard.
func TestSweepShardsMerge(t *testing.T) {
	var reps []*Report
	for i := range 2 {
		cfg := Config{Algorithm: "fenced", Kinds: []vocab.Kind{"crash-client"}, Exhaustive: true, NoShrink: true, Workers: 2,
			Duration: time.Second, Shard: i, Shards: 2}
		rep, err := Explore(hostCtx(t), cfg)
		require.NoError(t, err)
		assert.Contains(t, rep.Sweep.Statement, "no bound is stated", "shard %d alone ran half", i)
		reps = append(reps, rep)
	}
	ms, err := Merge(reps)
	require.NoError(t, err)
	m := ms[0]
	assert.Equal(t, m.Sweep.Singles.Exist, int64(m.Sweep.Singles.Ran))
	assert.Contains(t, m.Sweep.Statement, "fenced: no violation under any single crash-client fault")
}

func TestBadSweepConfig(t *testing.T) {
	_, err := Config{Algorithm: "setpx", Kinds: []vocab.Kind{KindNone}, Exhaustive: true}.Resolve()
	require.ErrorIs(t, err, BadInput)
	assert.Contains(t, err.Error(), "--exhaustive")
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2310: "2,310", 1234567: "1,234,567", -4500: "-4,500"} {
		assert.Equal(t, want, thousands(n))
	}
}

// A pair tier run to its end without a violation extends the statement;
// a report whose sweep counts no sweep writes is refused.
func TestSweepStatementAndCheck(t *testing.T) {
	sw := &Sweep{Points: 2, Kinds: vocab.KindStrings(DefaultKinds("setpx")), World: "2 clients, 1 node, ttl 500ms",
		Singles: Tier{Exist: 16, Unreduced: 32, Ran: 16}, Pairs: Tier{Exist: 256, Unreduced: 496, Ran: 256}}
	assert.Equal(t, "setpx: no violation under any single fault at any of its 2 points (16 schedules; 2 clients, 1 node, ttl 500ms); nor under any pair of them (256)",
		sw.statement("setpx"))
	sw.Pairs.Ran, sw.Pairs.Violating = 100, 3
	assert.Equal(t, "setpx: no violation under any single fault at any of its 2 points (16 schedules; 2 clients, 1 node, ttl 500ms); pairs: 100 of 256 ran, 3 broke it",
		sw.statement("setpx"))
	sw.Kinds, sw.Narrowed = []string{"pause-client", "delay"}, true
	assert.Equal(t, "setpx: no violation under any single pause-client or delay fault at any of its 2 points (16 schedules; 2 clients, 1 node, ttl 500ms); pairs: 100 of 256 ran, 3 broke it",
		sw.statement("setpx"))
	sw.Singles.Violating = 2
	sw.Singles.Signatures = []SignatureRuns{{Signature: "exclusion unsafe [pause-client]", Runs: 2}}
	assert.Equal(t, "setpx: 2 of its 16 single-fault schedules (pause-client, delay only) at its 2 points break it (2 clients, 1 node, ttl 500ms): exclusion unsafe [pause-client] in 2; pairs: 100 of 256 ran, 3 broke it",
		sw.statement("setpx"))
	require.NoError(t, sw.check())
	sw.Singles.Ran = 17
	assert.ErrorContains(t, sw.check(), "sweep.singles.ran 17: more than the 16")
	sw.Singles.Ran, sw.Pairs.Violating = 16, -1
	assert.ErrorContains(t, sw.check(), "sweep.pairs: negative")
}
