package explore

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// A fault reaches its point when its trigger came; a fault at a time, or
// one whose trigger never came, reaches none. The grid has a count where
// reached, "-" where the kind is drawn but never reached there, and a
// blank for a kind not drawn.
func TestCoverageGrid(t *testing.T) {
	cfg := Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client", "kill-node", "delay"}}.withDefaults()
	r := newReach(cfg, []string{"after-enter", "before-exit"})
	s := &scenarios.Scenario{Faults: []scenarios.FaultSpec{
		{Kind: "pause-client", When: &scenarios.PointSpec{Point: "after-enter"}},
		{Kind: "kill-node", At: dur(10 * time.Millisecond)},
		{Kind: "delay", When: &scenarios.PointSpec{Point: "before-exit"}},
		{Kind: "pause-client", When: &scenarios.PointSpec{Point: "after-enter"}},
	}}
	r.add(reachedBy(s, []int{3})) // the delay never started
	r.add(reachedBy(s, nil))
	c := r.coverage()
	assert.Equal(t, 4, c.Count("after-enter", "pause-client"))
	assert.Equal(t, 1, c.Count("before-exit", "delay"))
	assert.Zero(t, c.Count("after-enter", "kill-node"), "a fault at a time reaches no point")
	reached, reachable := c.Reached()
	assert.Equal(t, 2, reached)
	assert.Equal(t, 2*3, reachable)

	md := c.markdown()
	lines := strings.Split(md, "\n")
	row := func(point string) []string {
		for _, l := range lines {
			if strings.HasPrefix(l, "| "+point+" |") {
				return strings.Split(strings.Trim(l, "|"), "|")
			}
		}
		t.Fatalf("no row %s in\n%s", point, md)
		return nil
	}
	col := func(kind string) int {
		for i, k := range c.Kinds {
			if k == kind {
				return i + 1
			}
		}
		t.Fatalf("no column %s", kind)
		return 0
	}
	enter, exit := row("after-enter"), row("before-exit")
	assert.Equal(t, " 4 ", enter[col("pause-client")])
	assert.Equal(t, " - ", enter[col("kill-node")])
	assert.Equal(t, " - ", enter[col("delay")])
	assert.Equal(t, " 1 ", exit[col("delay")])
	assert.Equal(t, "  ", enter[col("crash-client")], "a kind not drawn is blank")
	assert.Contains(t, md, "2 of 6 reachable pairs reached")

	m := c.merge(&Coverage{Points: []string{"after-enter"}, Kinds: []string{"pause-client"}, Drawn: []string{"pause-client"}, Counts: [][]int{{3}}})
	assert.Equal(t, 7, m.Count("after-enter", "pause-client"))
}

// Steered toward the pairs not yet reached, the same number of draws
// reaches more (point, kind) pairs than draws from (seed, j) alone.
func TestGuidedDrawReachesMore(t *testing.T) {
	base := Config{Algorithm: "setpx", Runs: 128, MaxFaults: 1, NoShrink: true, Workers: 2, Duration: time.Second, Seed: 3}
	unguided := base
	unguided.Unguided = true
	ru, err := Explore(hostCtx(t), unguided)
	require.NoError(t, err)
	rg, err := Explore(hostCtx(t), base)
	require.NoError(t, err)
	u, reachable := ru.Coverage.Reached()
	g, _ := rg.Coverage.Reached()
	t.Logf("reached %d (unguided) and %d (guided) of %d pairs in %d runs", u, g, reachable, base.Runs)
	assert.Greater(t, g, u)
	assert.True(t, rg.Coverage.Guided)
	assert.False(t, ru.Coverage.Guided)
}

// What steers schedule j is fixed by the seed and the earlier batches'
// runs, not by which worker ran what when: one worker and two reach the
// same pairs as often.
func TestGuidedDrawIsDeterministic(t *testing.T) {
	base := Config{Algorithm: "setpx", Runs: 3*guideBatch + 8, MaxFaults: 2, NoShrink: true, Duration: time.Second, Seed: 5}
	var got []*Coverage
	for _, w := range []int{1, 2} {
		cfg := base
		cfg.Workers = w
		rep, err := Explore(hostCtx(t), cfg)
		require.NoError(t, err)
		got = append(got, rep.Coverage)
	}
	assert.Equal(t, got[0].Counts, got[1].Counts)
}
