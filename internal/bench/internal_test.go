package bench

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
)

func TestWriteAtomicallyFailureLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "results", "run")
	boom := errors.New("disk full")
	err := writeAtomically(out, func(tmp string) error {
		require.NoError(t, os.WriteFile(filepath.Join(tmp, FileCSV), []byte("half"), 0o644))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, err = os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist, "no results directory after a failure")
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Empty(t, entries, "no temporary directory left either")
}

func TestWriteAtomicallyIntoEmptyDir(t *testing.T) {
	out := t.TempDir() // exists, empty: allowed
	require.NoError(t, writeAtomically(out, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, FileCSV), []byte("x"), 0o644)
	}))
	data, err := os.ReadFile(filepath.Join(out, FileCSV))
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
}

func TestPlanPutsDesignsAtTheirSizes(t *testing.T) {
	cfg := Config{Algorithms: []string{"setpx", Raw, "redlock", "redsync"}}.withDefaults()
	cells := plan(cfg)
	require.Len(t, cells, 2*3*4, "contention x nodes x clients")
	for _, c := range cells {
		if c.nodes == 1 {
			assert.Equal(t, []string{"setpx", Raw}, c.designs)
		} else {
			assert.Equal(t, []string{Raw, "redlock", "redsync"}, c.designs, "raw fans out at every size")
		}
	}
	configs, est := cfg.Size()
	assert.Equal(t, 2*4*(2+3+3), configs)
	limit := 2 * time.Duration(len(cells)) * limitPhase(cfg)
	assert.Positive(t, limit)
	assert.Equal(t, time.Duration(configs)*(cfg.Duration+cfg.Warmup)+limit, est, "the cells and the server limit at each client count")

	cfg.Nodes = []int{1}
	assert.Len(t, plan(cfg), 2*4)
	notes := unplanned(cfg)
	require.Len(t, notes, 2)
	assert.Contains(t, notes[0], "redlock not measured")
}

func TestQuickIsUnderAMinute(t *testing.T) {
	_, est := Quick().Size()
	assert.Less(t, est, 45*time.Second, "leaves room for starting nodes within a minute")
	assert.GreaterOrEqual(t, Quick().Rounds, MinRepeats, "a median with a spread")
	for _, family := range []string{"setnx-expire", "setnx-getset", "lua-setnx", "setpx", "reentrant", "rwlock", "redlock", "fenced", Raw, "redislock", "redsync"} {
		assert.Contains(t, Quick().Algorithms, family)
	}
}

func TestFromHistory(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Call: ms(0), Return: ms(1), Outcome: history.OK},
		{Kind: history.KindAcquire, Client: 1, Call: ms(0), Return: ms(1), Outcome: history.Fail},
		{Kind: history.KindFault, Client: history.NoClient, Call: ms(2), Return: ms(40), Fault: "pause-client 0"},
		{Kind: history.KindAcquire, Client: 1, Call: ms(10), Return: ms(11), Outcome: history.Fail},
		{Kind: history.KindRelease, Client: 0, Call: ms(45), Return: ms(46), Outcome: history.OK},
		{Kind: history.KindAcquire, Client: 1, Call: ms(50), Return: ms(51), Outcome: history.OK},
		{Kind: history.KindRelease, Client: 1, Call: ms(60), Return: ms(62), Outcome: history.OK},
		{Kind: history.KindAcquire, Client: 0, Call: ms(70), Return: ms(90), Outcome: history.Unknown, Err: "timeout"},
		{Kind: history.KindSentinel, Client: history.NoClient, Call: ms(100), Return: ms(100), Event: "+sdown", Detail: "master locksim-n0 127.0.0.1 1", Source: "s0"},
		{Kind: history.KindSentinel, Client: history.NoClient, Call: ms(120), Return: ms(120), Event: "+odown", Detail: "master locksim-n0 127.0.0.1 1 #quorum 2/2", Source: "s0"},
		{Kind: history.KindSentinel, Client: history.NoClient, Call: ms(300), Return: ms(300), Event: "+switch-master", Detail: "locksim-n0 127.0.0.1 1 127.0.0.1 2", Source: "s0"},
	}}
	spec, err := sim.Config{Algorithm: "setpx", Cluster: sim.ClusterConfig{Backend: sim.BackendMiniredis, Nodes: 1},
		Clients: 2, Duration: time.Second}.Resolve()
	require.NoError(t, err)
	run, r := fromHistory(&sim.Result{Config: spec.Config(), History: h}, "s")
	assert.Equal(t, []FaultWindow{{Fault: "pause-client 0", StartS: 0.002, EndS: 0.04}}, run.Faults)
	assert.Equal(t, 2, run.Attempts.OK)
	assert.Equal(t, 2, run.Attempts.Fail)
	assert.Equal(t, 1, run.Attempts.Unknown)
	assert.Equal(t, int64(2), r.Cycles)
	assert.Equal(t, int64(1), r.Errors)
	assert.Equal(t, "timeout", r.FirstErr)
	assert.InDelta(t, 2.0, r.Throughput, 1e-9)
	// Client 1 waited from its first attempt (0 ms) to the lease (51 ms).
	assert.InDelta(t, 51_000, r.Acquire.Max, 51)
	assert.InDelta(t, 62_000, r.Cycle.Max, 62)
	// Every attempt is a point: the leases at their wait's start, the
	// refusals and the unknown at their own call.
	require.Len(t, run.points, 5)
	var outcomes []history.Outcome
	for _, p := range run.points {
		outcomes = append(outcomes, p.Outcome)
	}
	assert.Equal(t, []history.Outcome{history.OK, history.Fail, history.Fail, history.OK, history.Unknown}, outcomes)
	assert.Equal(t, []FaultWindow{
		{Fault: "node 0: master down (Sentinel)", StartS: 0.1, EndS: 0.12},
		{Fault: "node 0: failover in progress", StartS: 0.12, EndS: 0.3},
	}, run.Sentinel, "Sentinel's windows as the run's timeline shades them")
}

func TestLogTicksLabelOneTwoFive(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(lg(0.05), lg(20)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "20"}, labels)
	assert.Equal(t, 0.05, down125(0.07))
	assert.Equal(t, 200.0, up125(130))
	assert.Equal(t, 1000.0, up125(1000))

	labels = nil
	for _, tk := range (logTicks{si: true}).Ticks(lg(1), lg(100_000)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"1", "10", "100", "1k", "10k", "100k"}, labels, "five decades: powers of ten only")
}

func TestCPUModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpuinfo")
	require.NoError(t, os.WriteFile(p, []byte("processor\t: 0\nmodel name\t: Some  CPU @ 2.0GHz\n"), 0o644))
	assert.Equal(t, "Some CPU @ 2.0GHz", cpuModel(p))
	assert.Equal(t, "unknown CPU", cpuModel(filepath.Join(t.TempDir(), "none")))
}

func TestComparisonsPairDesignsWithReferences(t *testing.T) {
	mk := func(algo string, nodes int, tp float64, p99 float64) Result {
		return Result{Algorithm: algo, Kind: kindOf(algo), Nodes: nodes, Clients: 4, Contention: KeyPerClient,
			Throughput: tp, RoundThroughput: []float64{tp * 0.9, tp, tp * 1.1}, Cycle: Percentiles{P99: p99}, Acquire: Percentiles{P99: p99}}
	}
	rs := []Result{mk("setpx", 1, 96, 100), mk(Raw, 1, 100, 90), mk("redislock", 1, 90, 110),
		mk("redlock", 5, 50, 300), mk("redsync", 5, 40, 280), mk(Raw, 5, 60, 250)}
	addRatios(rs)
	assert.InDelta(t, 0.96, rs[0].VsRaw, 1e-9)
	assert.InDelta(t, 96.0/90, rs[0].VsPeer, 1e-9)
	assert.Equal(t, "redsync", rs[3].Peer)
	assert.InDelta(t, 50.0/60, rs[3].VsRaw, 1e-9, "against raw at its own size, not raw at one node")
	cs := comparisons(rs)
	var titles []string
	for _, c := range cs {
		titles = append(titles, c.Title)
	}
	assert.Equal(t, []string{"harness overhead: setpx vs raw", "setpx vs redislock", "redlock vs raw fan-out, 5 nodes",
		"redsync vs raw fan-out, 5 nodes", "redlock vs redsync, 5 nodes"}, titles)
	assert.True(t, cs[0].Met, "0.96 >= 0.95")
	assert.True(t, cs[1].Met)
	assert.False(t, cs[2].Met, "0.83 < 0.90")
	assert.Empty(t, cs[3].Goal, "redsync against raw is for reference")
	assert.True(t, cs[4].Met)
	assert.True(t, slices.IsSorted([]float64{cs[0].RoundMin, cs[0].Throughput, cs[0].RoundMax}))
	assert.Equal(t, 3, cs[0].Rounds)
	assert.Equal(t, "slower in every round", cs[0].Noise)
	assert.Equal(t, "faster in every round", cs[1].Noise)

	// The summary tells a goal met in every round from one met by the
	// median alone.
	cs[1].RoundMin = 0.9
	head := (&Report{Comparisons: cs}).headlineSection()
	met := func(i int) string { return head.Table.Rows[i][len(head.Table.Rows[i])-1].String() }
	assert.Equal(t, "yes, every round", met(0))
	assert.Equal(t, "median only: inside the noise", met(1))
	assert.Equal(t, "no", met(2))
	assert.Equal(t, "–", met(3), "no goal")
	require.Len(t, head.Items, 1)
	assert.Contains(t, head.Items[0].String(), "Goals missed: redlock vs raw fan-out, 5 nodes at 4 clients per-client: 0.83")
}

func TestRoundSpread(t *testing.T) {
	s := roundSpread([]float64{10, 30, 20, 5}, []float64{10, 10, 10, 0})
	assert.Equal(t, Spread{Median: 2, Min: 1, Max: 3, Rounds: 3}, s, "a round where the reference did nothing has no ratio")
	s = roundSpread([]float64{9, 11, 10, 12}, []float64{10, 10, 10, 10})
	assert.InDelta(t, 1.05, s.Median, 1e-9, "the mean of the middle two")
	assert.Equal(t, "inside the noise: rounds on both sides of 1.00", noiseText(s))
	assert.InDelta(t, 0.15, s.Band(), 1e-9)
	assert.Equal(t, "only 2 round(s): no spread to judge by", noiseText(roundSpread([]float64{2, 2}, []float64{1, 1})))
}

func TestCIFlattensEveryResult(t *testing.T) {
	rs := []Result{{Algorithm: "setpx", Kind: KindDesign, Nodes: 1, Clients: 1, Contention: KeyPerClient, Throughput: 5,
		RoundThroughput: []float64{5, 5, 5}, AllocsPerCycle: 20, Acquire: Percentiles{P50: 1, P99: 2}, Cycle: Percentiles{P99: 3}},
		{Algorithm: Raw, Kind: KindRaw, Nodes: 1, Clients: 1, Contention: KeyPerClient, Throughput: 5, RoundThroughput: []float64{5, 5, 5}}}
	addRatios(rs)
	ci := (&Report{Results: rs}).CI()
	require.Len(t, ci.Results, 2)
	assert.Equal(t, CIResult{Design: "setpx", Kind: KindDesign, Nodes: 1, Clients: 1, Contention: KeyPerClient, CyclesPerS: 5,
		AcquireP50Us: 1, AcquireP99Us: 2, CycleP99Us: 3, AllocsPerCycle: 20,
		VsRaw: &Spread{Median: 1, Min: 1, Max: 1, Rounds: 3}}, ci.Results[0])
	assert.Nil(t, ci.Results[1].VsRaw)
}

func TestDocMarkdown(t *testing.T) {
	d := Doc{
		Title: "t",
		Facts: []Text{Words("a ").Then(Code, "x|y")},
		Sections: []Section{{
			Title:  "S",
			Paras:  []Text{Words("p\nq")},
			Table:  &Table{Head: []string{"n", "v"}, Right: []bool{false, true}, Rows: [][]Text{{Text{}.Then(Bold, "raw"), Words("1|2")}}},
			Items:  []Text{Words("i")},
			Charts: []Chart{{Name: "c", Caption: "cap"}},
		}},
	}
	assert.Equal(t, "### t\n\n- a `x|y`\n\n#### S\n\np q\n\n| n | v |\n|---|---:|\n| **raw** | 1\\|2 |\n\n- i\n\n"+
		"- [c.svg](d/c.svg): cap\n\n![c](d/c.png)\n\n", d.Markdown(3, func(n string) string { return "d/" + n }))
}

// The cycle limit is the harmonic sum of the two commands' rates, and
// each result's fraction is its throughput over the limit at its client
// count; a count without a limit leaves the fraction unset.
func TestCycleLimitAndFractions(t *testing.T) {
	if got := CycleLimit(100, 300); got != 75 {
		t.Errorf("CycleLimit(100, 300) = %v, want 75", got)
	}
	if got := CycleLimit(0, 300); got != 0 {
		t.Errorf("CycleLimit(0, 300) = %v, want 0", got)
	}
	rs := []Result{{Algorithm: "setpx", Clients: 1, Throughput: 30}, {Algorithm: "setpx", Clients: 4, Throughput: 50}}
	addLimitFractions(rs, []Limit{{Clients: 1, SetPerS: 100, EvalShaPerS: 300, CyclePerS: 75}})
	if rs[0].VsLimit != 0.4 || rs[1].VsLimit != 0 {
		t.Errorf("fractions %v and %v, want 0.4 and unset", rs[0].VsLimit, rs[1].VsLimit)
	}
	if FmtLimit(rs[0].VsLimit) != "0.40" || FmtLimit(rs[1].VsLimit) != "–" {
		t.Errorf("FmtLimit: %q and %q", FmtLimit(rs[0].VsLimit), FmtLimit(rs[1].VsLimit))
	}
}

// Each client count's limit is the median of the measurements before its
// cells, in the order the counts were first measured.
func TestCombineLimits(t *testing.T) {
	got := combineLimits([]int{16, 1}, map[int][]Limit{
		1:  {{Clients: 1, SetPerS: 10, EvalShaPerS: 30, CyclePerS: 7.5}},
		16: {{SetPerS: 100, EvalShaPerS: 300, CyclePerS: 75}, {SetPerS: 20, EvalShaPerS: 20, CyclePerS: 10}, {SetPerS: 200, EvalShaPerS: 100, CyclePerS: 66}},
	})
	want := []Limit{
		{Clients: 16, SetPerS: 100, EvalShaPerS: 100, CyclePerS: 66, Measurements: 3},
		{Clients: 1, SetPerS: 10, EvalShaPerS: 30, CyclePerS: 7.5, Measurements: 1},
	}
	assert.Equal(t, want, got)
}
