package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func spread(min, med, max float64) Spread { return Spread{Median: med, Min: min, Max: max, Rounds: 3} }

// A cell counts as fallen only when every round of the run lies more than
// Margin below the baseline's lowest round, and a ratio only when two of
// its cells fell so (or its one cell, when it was measured in one).
func TestCompareNeedsTwoCellsBelowEveryRound(t *testing.T) {
	r := func(design string, clients int, m Contention, s Spread) Ratio {
		return Ratio{Design: design, Against: Raw, Nodes: 1, Clients: clients, Contention: m, Spread: s}
	}
	base := []Ratio{
		r("setpx", 1, KeyPerClient, spread(0.95, 1.00, 1.02)), r("setpx", 16, KeyPerClient, spread(0.95, 0.99, 1.01)),
		r("setpx", 1, HotKey, spread(0.95, 1.00, 1.02)),
		r("redislock", 1, KeyPerClient, spread(0.85, 0.90, 0.95)), r("redislock", 16, KeyPerClient, spread(0.85, 0.90, 0.95)),
	}
	cur := []Ratio{
		r("setpx", 1, KeyPerClient, spread(0.70, 0.80, 0.85)),   // 0.85 x 1.1 < 0.95: fell
		r("setpx", 16, KeyPerClient, spread(0.60, 0.70, 0.80)),  // fell
		r("setpx", 1, HotKey, spread(0.60, 0.70, 0.90)),         // one round within the margin: not fallen
		r("redislock", 1, KeyPerClient, spread(0.5, 0.6, 0.7)),  // fell, but alone
		r("redislock", 16, KeyPerClient, spread(0.5, 0.7, 0.8)), // 0.8 x 1.1 = 0.88 > 0.85: within the noise
		r("lua-setnx", 1, KeyPerClient, spread(0.9, 0.9, 0.9)),  // nothing to compare with
	}
	regs, unmatched := Compare(base, cur)
	assert.Equal(t, 1, unmatched)
	require.Len(t, regs, 1)
	g := regs[0]
	assert.Equal(t, "setpx", g.Design)
	assert.Equal(t, 3, g.Of)
	require.Len(t, g.Cells, 2)
	assert.Equal(t, "setpx vs raw, 1 node, fell in 2 of 3 cells by more than 10% beyond every round: "+
		"at 1 clients per-client from 1.00 (lowest round 0.95) to 0.80 (highest round 0.85); "+
		"at 16 clients per-client from 0.99 (lowest round 0.95) to 0.70 (highest round 0.80)", g.String())

	// a ratio measured in one cell is judged by that cell
	regs, _ = Compare(base[3:4], cur[3:4])
	assert.Len(t, regs, 1)
	// a single round is no spread to judge by
	one := cur[:2]
	one[0].Rounds, one[1].Rounds = 1, 1
	regs, _ = Compare(base, one)
	assert.Empty(t, regs)
}

// recordedRuns reads eleven honest quick runs on a loaded machine (load
// average 18-23, seven other sessions), one after another, each with the
// command that made it (testdata/quick-under-load.json).
func recordedRuns(t *testing.T) []BaselineRun {
	b, err := ReadBaseline(filepath.Join("testdata", "quick-under-load.json"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(b.Runs), 10)
	for _, r := range b.Runs {
		require.NotEmpty(t, r.Load)
		require.Contains(t, r.Command, "--quick")
	}
	return b.Runs
}

// slowed is run with design's throughput scaled by f: every ratio of the
// design to its references scales with it.
func slowed(run []Ratio, design string, f float64) []Ratio {
	out := make([]Ratio, len(run))
	for i, r := range run {
		if r.Design == design {
			r.Median, r.Min, r.Max = r.Median*f, r.Min*f, r.Max*f
		}
		out[i] = r
	}
	return out
}

// On recorded honest runs under load, a baseline of three of them flags no
// regression in any other, while the same run with setpx made 30% slower
// is flagged against every such baseline, and redislock 30% slower or
// redlock half as fast against nearly all (their cells are noisier).
func TestCompareOnRecordedRunsUnderLoad(t *testing.T) {
	runs := recordedRuns(t)
	n := len(runs)
	caught := map[string]int{}
	pairs := 0
	for s := range n {
		base := Baseline{Format: BaselineFormat}
		in := map[int]bool{}
		for i := range 3 {
			base.Add(runs[(s+i)%n])
			in[(s+i)%n] = true
		}
		was := base.Ratios()
		for j, cur := range runs {
			if in[j] {
				continue
			}
			pairs++
			regs, unmatched := Compare(was, cur.Ratios)
			assert.Zero(t, unmatched)
			for _, g := range regs {
				t.Errorf("honest run %d (load %s) against runs %d-%d: %s", j, cur.Load, s, s+2, g)
			}
			for _, slow := range []struct {
				design string
				f      float64
			}{{"setpx", 0.7}, {"redislock", 0.7}, {"redlock", 0.5}} {
				regs, _ := Compare(was, slowed(cur.Ratios, slow.design, slow.f))
				for _, g := range regs {
					if g.Design == slow.design {
						caught[slow.design]++
						break
					}
				}
			}
		}
	}
	assert.Equal(t, pairs, caught["setpx"], "setpx at 0.7x caught against every baseline")
	assert.GreaterOrEqual(t, float64(caught["redislock"]), 0.9*float64(pairs), "redislock at 0.7x")
	assert.GreaterOrEqual(t, float64(caught["redlock"]), 0.85*float64(pairs), "redlock at 0.5x")
	t.Logf("%d comparisons; caught %v", pairs, caught)
}

// The committed baseline .ci/run holds the quick sweep to reads as one and
// was made by that sweep's command.
func TestCommittedBaseline(t *testing.T) {
	path := filepath.Join("testdata", "baseline-quick.json")
	b, err := ReadBaseline(path)
	require.NoError(t, err)
	require.NotEmpty(t, b.Runs)
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	require.NoError(t, err)
	for _, run := range b.Runs {
		args := strings.Fields(strings.TrimPrefix(run.Command, "lockbench "))
		var kept []string
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "--out-dir", "--save-baseline", "--out":
				i++ // where it was written, not what was measured
				continue
			}
			kept = append(kept, args[i])
		}
		assert.Contains(t, string(ci), "lockbench\" "+strings.Join(kept, " ")+" --baseline internal/bench/testdata/baseline-quick.json ",
			".ci/run measures what the baseline measured")
	}
}

// A baseline written and read back is the same; an earlier run's
// bench.json (or its directory) reads as a baseline of that one run; the
// baseline's ratios are the per-cell medians of its runs.
func TestBaselineRoundTrip(t *testing.T) {
	rs := []Result{
		{Algorithm: "setpx", Kind: KindDesign, Nodes: 1, Clients: 1, Contention: KeyPerClient, RoundThroughput: []float64{9, 10, 11}},
		{Algorithm: Raw, Kind: KindRaw, Nodes: 1, Clients: 1, Contention: KeyPerClient, RoundThroughput: []float64{10, 10, 10}},
		{Algorithm: PeerSingle, Kind: KindPeer, Nodes: 1, Clients: 1, Contention: KeyPerClient, RoundThroughput: []float64{5, 5, 5}},
	}
	rep := &Report{Command: "lockbench --quick", Results: rs}
	var b Baseline
	b.Add(RunOf(rep, "1.00 2.00 3.00"))
	require.Len(t, b.Ratios(), 3) // setpx vs raw, setpx vs redislock, redislock vs raw
	path := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, WriteBaseline(path, b))
	got, err := ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, b, got)

	dir := t.TempDir()
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileJSON), data, 0o644))
	fromDir, err := ReadBaseline(dir)
	require.NoError(t, err)
	assert.Equal(t, b.Ratios(), fromDir.Ratios())

	_, err = ReadBaseline(t.TempDir())
	assert.ErrorContains(t, err, FileJSON)

	// three runs: the median of each statistic; more than BaselineRuns
	// keep the last
	r := func(min, med, max float64) BaselineRun {
		return BaselineRun{Ratios: []Ratio{{Design: "setpx", Against: Raw, Nodes: 1, Clients: 1, Contention: KeyPerClient, Spread: spread(min, med, max)}}}
	}
	var three Baseline
	three.Add(r(0.9, 1.0, 1.1))
	three.Add(r(0.1, 5.0, 9.0))
	three.Add(r(0.8, 0.9, 1.0))
	assert.Equal(t, Spread{Median: 1.0, Min: 0.8, Max: 1.1, Rounds: 9}, three.Ratios()[0].Spread)
	for range BaselineRuns {
		three.Add(r(1, 1, 1))
	}
	assert.Len(t, three.Runs, BaselineRuns)
	assert.Equal(t, Spread{Median: 1, Min: 1, Max: 1, Rounds: 3 * BaselineRuns}, three.Ratios()[0].Spread)
}
