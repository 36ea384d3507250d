package review_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/review"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// fixtureMatrix is a small matrix written by hand: three designs, two
// runs a pair, scenarios of four families, one of them Redlock-only.
func fixtureMatrix() matrix.Matrix {
	safe := matrix.CellRun{Verdict: vocab.Safe}
	excl := matrix.CellRun{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Safe}}
	claim := matrix.CellRun{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Unsafe}}
	dead := matrix.CellRun{Verdict: vocab.Deadlock}
	unknown := matrix.CellRun{Verdict: vocab.Unknown}
	ran := func(s, a string, runs ...matrix.CellRun) matrix.Cell {
		return matrix.Cell{Scenario: s, Algorithm: a, Status: matrix.CellRan, Runs: runs}
	}
	na := func(s, a string) matrix.Cell {
		return matrix.Cell{Scenario: s, Algorithm: a, Status: matrix.CellNA}
	}
	skip := func(s, a string) matrix.Cell {
		return matrix.Cell{Scenario: s, Algorithm: a, Status: matrix.CellSkip, Reason: "no watchdog"}
	}
	return matrix.Matrix{
		Runs:       2,
		Algorithms: []string{"setpx", "redlock", "fenced"},
		Scenarios: []matrix.Row{
			{Name: "gc-pause-after-check", Family: scenarios.FamilyClientPause},
			{Name: "watchdog-gc-pause", Family: scenarios.FamilyClientPause},
			{Name: "redlock-restart-no-fsync", Family: scenarios.FamilyRestart},
			{Name: "crash-holder", Family: scenarios.FamilyCrash},
			{Name: "crash-between-setnx-expire", Family: scenarios.FamilyCrash},
			{Name: "control-contention", Family: scenarios.FamilyControl},
			{Name: "notify-contention", Family: scenarios.FamilyControl},
		},
		Cells: []matrix.Cell{
			ran("gc-pause-after-check", "setpx", excl, excl),
			ran("gc-pause-after-check", "redlock", excl, safe), // mixed: not safe
			ran("gc-pause-after-check", "fenced", safe, safe),
			ran("watchdog-gc-pause", "setpx", safe, safe),
			skip("watchdog-gc-pause", "redlock"),
			ran("watchdog-gc-pause", "fenced", safe, unknown), // unknown: not safe
			na("redlock-restart-no-fsync", "setpx"),
			ran("redlock-restart-no-fsync", "redlock", claim, claim),
			na("redlock-restart-no-fsync", "fenced"),
			ran("crash-holder", "setpx", safe, safe),
			ran("crash-holder", "redlock", safe, safe),
			ran("crash-holder", "fenced", safe, safe),
			ran("crash-between-setnx-expire", "setpx", dead, safe),
			ran("crash-between-setnx-expire", "redlock", safe, safe),
			ran("crash-between-setnx-expire", "fenced", safe, safe),
			ran("control-contention", "setpx", safe, safe),
			ran("control-contention", "redlock", safe, safe),
			ran("control-contention", "fenced", safe, safe),
			skip("notify-contention", "setpx"),
			na("notify-contention", "redlock"),
			skip("notify-contention", "fenced"),
		},
	}
}

func TestGridOfFixture(t *testing.T) {
	m := fixtureMatrix()
	g := review.GridOf(m)
	var fams []scenarios.Family
	for _, r := range g.Rows {
		fams = append(fams, r.Family)
	}
	assert.Equal(t, []scenarios.Family{scenarios.FamilyClientPause, scenarios.FamilyRestart, scenarios.FamilyCrash, scenarios.FamilyControl}, fams,
		"families in the review's order, only those the matrix has")
	text := func(row int) []string {
		var out []string
		for _, c := range g.Rows[row].Cells {
			out = append(out, c.Text())
		}
		return out
	}
	assert.Equal(t, []string{"1/2", "0/1", "1/2"}, text(0), "client pause: mixed and unknown are not safe; a skip is not counted")
	assert.Equal(t, []string{"n/a", "0/1", "n/a"}, text(1), "restart without data: Redlock only")
	assert.Equal(t, []string{"1/2", "2/2", "2/2"}, text(2))
	assert.Equal(t, []string{"1/1", "1/1", "1/1"}, text(3))

	assert.Equal(t, "", g.Rows[2].Footnote(g.Designs), "every design ran every crash scenario")
	assert.Equal(t, "restart without data: redlock only (every scenario of it).", g.Rows[1].Footnote(g.Designs))
	assert.Equal(t, "client pause: setpx and fenced only: watchdog-gc-pause.", g.Rows[0].Footnote(g.Designs))
	assert.Equal(t, []string{"notify-contention"}, g.Unrun, "a scenario no design ran is in no row")
	assert.Equal(t, []string{"control-contention"}, g.Rows[3].Scenarios)

	assert.Equal(t, "setpx: loses mutual exclusion under client pause (gc-pause-after-check); deadlocks under crash (crash-between-setnx-expire); "+
		"safe under contention control; not tested under restart without data (no scenario of it applies).",
		g.Sentence("setpx"))
	assert.Equal(t, "redlock: grants overlapping leases under restart without data (redlock-restart-no-fsync); loses mutual exclusion under client pause (gc-pause-after-check); "+
		"safe under crash and contention control.", g.Sentence("redlock"))
	assert.Equal(t, "fenced: is not shown safe under client pause (watchdog-gc-pause); safe under crash and contention control; "+
		"not tested under restart without data (no scenario of it applies).", g.Sentence("fenced"))

	common := g.CommonSet(m, m.Algorithms)
	assert.Equal(t, []string{"gc-pause-after-check", "crash-holder", "crash-between-setnx-expire"}, common,
		"fault scenarios every design ran: not the skipped, not-applicable or control ones")
	assert.Equal(t, 1, review.SafeOver(m, common, "setpx"))
	assert.Equal(t, 2, review.SafeOver(m, common, "redlock"))
	assert.Equal(t, 3, review.SafeOver(m, common, "fenced"))
}

func TestCostRatios(t *testing.T) {
	m := fixtureMatrix()
	g := review.GridOf(m)
	res := func(algo string, nodes, clients int, tp, p99 bench.Spread) bench.Result {
		return bench.Result{Algorithm: algo, Nodes: nodes, Clients: clients, Contention: bench.KeyPerClient, Throughput: 1000,
			VsRawRounds: tp, VsRawP99Rounds: p99}
	}
	sp := func(med, lo, hi float64) bench.Spread { return bench.Spread{Median: med, Min: lo, Max: hi, Rounds: 4} }
	var results []bench.Result
	for _, k := range review.CostClients {
		results = append(results,
			res(bench.Raw, 1, k, bench.Spread{}, bench.Spread{}),
			res(bench.Raw, 3, k, bench.Spread{}, bench.Spread{}),
			res(bench.Raw, 5, k, bench.Spread{}, bench.Spread{}),
			res("setpx", 1, k, sp(1.04, 0.97, 1.08), sp(1.3, 1.1, 1.5)),
			res("redlock", 3, k, sp(0.5, 0.4, 0.6), sp(2, 1.8, 2.2)),
			res("redlock", 5, k, sp(0.8, 0.75, 0.85), sp(0.99, 0.9, 1.1)),
		)
	}
	rep := &bench.Report{Backend: "redis-server 7.0.15", Settings: bench.Settings{Rounds: 4}, Results: results}
	c := review.CostOf(m, g, rep)
	require.Len(t, c.Rows, 3)
	setpx, redlock, fenced := c.Rows[0], c.Rows[1], c.Rows[2]
	assert.Equal(t, 1, setpx.Nodes)
	assert.Equal(t, 5, redlock.Nodes, "a multi-node design at the largest cluster measured")
	assert.Equal(t, "≈1.0, within noise (0.97–1.08)", setpx.Throughput[1].Text(), "above raw: noise, said next to it")
	assert.True(t, setpx.Throughput[1].Noise())
	assert.Equal(t, "1.30 (1.10–1.50)", setpx.P99[0].Text())
	assert.Equal(t, "0.80 (0.75–0.85)", redlock.Throughput[2].Text())
	assert.Equal(t, "≈1.0, within noise (0.90–1.10)", redlock.P99[0].Text(), "a latency whose rounds reach raw's")
	assert.Equal(t, "not measured", fenced.Throughput[0].Text())
	assert.Equal(t, []string{"fenced has no ratio to raw at 1, 16 and 64 client(s)"}, c.Gaps)
	assert.Equal(t, "1/3", setpx.SafeText(c))
	assert.Contains(t, c.Caption(3), "the 3 fault scenarios all 3 designs ran")
	assert.Contains(t, c.Caption(3), "Raw fanned out to 5 nodes: 1000 at 1, 1000 at 16, 1000 at 64 clients, cycles/s.")

	assert.Equal(t, "0.84, within noise (0.47–1.06)", review.Ratio{Spread: sp(0.84, 0.47, 1.06)}.Text(), "a median under raw's is shown, with the note")
	assert.Equal(t, "1.50, within noise (0.98–2.00)", review.Ratio{Spread: sp(1.5, 0.98, 2), LowerBetter: true}.Text())
	for _, r := range []review.Ratio{{Spread: sp(1.2, 1.1, 1.3)}, {Spread: sp(0.99, 0.95, 1.0)}} {
		assert.Contains(t, r.Text(), "within noise", "a throughput at or above raw is never printed bare")
	}
	assert.Equal(t, "0.90 (2 round(s): no spread)", review.Ratio{Spread: bench.Spread{Median: 0.9, Min: 0.85, Max: 0.95, Rounds: 2}}.Text())

	under := review.CostOf(m, g, &bench.Report{Under: &bench.UnderReport{}})
	assert.Contains(t, under.Why, "--under")
	assert.Contains(t, review.CostOf(m, g, nil).Why, "No lockbench run")
}

// An interrupted matrix makes a page that says so at its top, and a pair
// cut short counts in no denominator and as no difference.
func TestInterruptedMatrixOnThePage(t *testing.T) {
	m := fixtureMatrix()
	m.Incomplete = true
	for i := range m.Cells {
		if m.Cells[i].Scenario == "crash-holder" && m.Cells[i].Algorithm == "fenced" {
			m.Cells[i].Status, m.Cells[i].Runs = matrix.CellInterrupted, nil
		}
	}
	dir := t.TempDir()
	var b bytes.Buffer
	require.NoError(t, m.WriteJSON(&b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, matrix.FileJSON), b.Bytes(), 0o644))
	r, err := review.Load(dir, review.GivenBench(""))
	require.NoError(t, err)
	require.Len(t, r.Incomplete, 1)
	assert.Contains(t, r.Incomplete[0], "1 pair(s) did not finish")
	g := review.GridOf(r.Matrix)
	for _, row := range g.Rows {
		if row.Family == scenarios.FamilyCrash {
			assert.Equal(t, 1, row.Cells[2].Ran, "fenced's crash family counts crash-between-setnx-expire alone")
		}
	}
	page := filepath.Join(t.TempDir(), "index.html")
	require.NoError(t, r.Write(page))
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "This review did not finish: the matrix was interrupted")
}
