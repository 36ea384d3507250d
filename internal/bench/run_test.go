package bench_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// These tests check structure and plausibility, never speed: the numbers
// of a 200 ms run on a shared machine say nothing about the designs.

func tinyConfig() bench.Config {
	return bench.Config{
		Backend:    sim.BackendMiniredis,
		Algorithms: []string{"setpx", "redislock", bench.Raw},
		Clients:    []int{1, 2},
		Nodes:      []int{1},
		Duration:   200 * time.Millisecond,
		Rounds:     2,
		Warmup:     20 * time.Millisecond,
	}
}

func TestRunWritesEveryFile(t *testing.T) {
	var events []bench.Progress
	cfg := tinyConfig()
	cfg.Progress = func(p bench.Progress) { events = append(events, p) }
	rep, err := bench.Run(context.Background(), cfg)
	require.NoError(t, err)

	const configs = 3 * 2 * 2 // designs x clients x contention
	require.Len(t, rep.Results, configs)
	for _, r := range rep.Results {
		name := r.Algorithm + "/" + strconv.Itoa(r.Clients) + "/" + string(r.Contention)
		assert.Positive(t, r.Throughput, name)
		assert.Positive(t, r.Cycles, name)
		assert.GreaterOrEqual(t, r.Attempts, r.Cycles, name)
		assert.InDelta(t, 0.2, r.Seconds, 1e-9, name)
		assert.Len(t, r.RoundThroughput, 2, name)
		if assert.Len(t, r.RoundAcquireP99, 2, name) {
			for _, p := range r.RoundAcquireP99 {
				assert.Positive(t, p, name)
				assert.LessOrEqual(t, p, r.Acquire.Max, "%s: a round's p99 is within the run's range", name)
			}
		}
		if r.Algorithm != bench.Raw {
			assert.Equal(t, 2, r.VsRawP99Rounds.Rounds, "%s: the p99 ratio has a spread over the rounds", name)
		}
		assert.Equal(t, 1, r.Nodes, name)
		for _, p := range []bench.Percentiles{r.Acquire, r.Cycle} {
			assert.True(t, p.Monotone(), "%s: percentiles not monotone: %+v", name, p)
			assert.Positive(t, p.P50, name)
			assert.Equal(t, r.Cycles, p.Count, name)
		}
		assert.LessOrEqual(t, r.Acquire.P50, r.Cycle.P50, "%s: a cycle contains its acquire", name)
		assert.Positive(t, r.AllocsPerCycle, "%s: a cycle allocates (go-redis's commands at least)", name)
		assert.Positive(t, r.CPUPerCycleUs, name)
		assert.Positive(t, r.VsLimit, "%s: every design is a fraction of the server's cycle limit", name)
		if r.Contention == bench.KeyPerClient {
			assert.Zero(t, r.Refused, "%s: nobody else locks a client's own key", name)
		}
		switch r.Algorithm {
		case bench.Raw:
			assert.Equal(t, bench.KindRaw, r.Kind)
			assert.Zero(t, r.VsRaw)
		case "redislock":
			assert.Equal(t, bench.KindPeer, r.Kind)
			assert.Positive(t, r.VsRaw)
			assert.Empty(t, r.Peer)
		case "setpx":
			assert.Equal(t, bench.KindDesign, r.Kind)
			assert.Positive(t, r.VsRaw)
			assert.Equal(t, 2, r.VsRawRounds.Rounds, "one ratio per round")
			assert.True(t, r.VsRawRounds.Min <= r.VsRaw && r.VsRaw <= r.VsRawRounds.Max, "the median lies in the range")
			assert.Equal(t, "redislock", r.Peer)
			assert.Positive(t, r.VsPeer)
		}
	}
	// The server's limit, once per client count, and the fractions against it.
	require.Len(t, rep.Limits, 2)
	for i, l := range rep.Limits {
		assert.Equal(t, cfg.Clients[i], l.Clients)
		assert.Positive(t, l.SetPerS)
		assert.Positive(t, l.EvalShaPerS)
		assert.Equal(t, 2, l.Measurements, "one measurement before each of the count's cells (one per contention)")
		assert.Positive(t, l.CyclePerS)
		for _, r := range rep.Results {
			if r.Clients == l.Clients {
				assert.InDelta(t, r.Throughput/l.CyclePerS, r.VsLimit, 1e-9, "%s at %d clients", r.Algorithm, r.Clients)
			}
		}
	}
	// setpx vs raw and setpx vs redislock, for each clients x contention.
	assert.Len(t, rep.Comparisons, 2*2*2)
	require.NotEmpty(t, events)
	last := events[len(events)-1]
	assert.Equal(t, last.Total, last.Done)
	assert.Equal(t, 3*2*2*2, last.Total, "one step per design, cell and round")

	rep.Command = "lockbench --test"
	out := filepath.Join(t.TempDir(), "run")
	require.NoError(t, rep.Write(out))
	for _, f := range []string{bench.FileCSV, bench.FileJSON, bench.FileSummary,
		"throughput.svg", "throughput.png", "latency.svg", "latency.png", "cdf.svg", "cdf.png"} {
		fi, err := os.Stat(filepath.Join(out, f))
		if assert.NoError(t, err, f) {
			assert.Positive(t, fi.Size(), f)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary directory is left beside the results")

	// bench.csv parses back into the same rows.
	f, err := os.Open(filepath.Join(out, bench.FileCSV))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, configs+1)
	assert.Equal(t, bench.CSVHeader, rows[0])
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, row := range rows[1:] {
		r := rep.Results[i]
		assert.Equal(t, r.Algorithm, row[col["algorithm"]])
		assert.Equal(t, string(r.Contention), row[col["contention"]])
		assert.Equal(t, strconv.Itoa(r.Clients), row[col["clients"]])
		tp, err := strconv.ParseFloat(row[col["cycles_per_s"]], 64)
		require.NoError(t, err)
		assert.InDelta(t, r.Throughput, tp, 1e-6)
		var ps []float64
		for _, h := range []string{"acquire_p50_us", "acquire_p90_us", "acquire_p99_us", "acquire_p999_us", "acquire_max_us"} {
			v, err := strconv.ParseFloat(row[col[h]], 64)
			require.NoError(t, err, h)
			ps = append(ps, v)
		}
		assert.IsNonDecreasing(t, ps, "row %d", i+1)
	}

	// bench.json parses back into a report with the same results.
	data, err := os.ReadFile(filepath.Join(out, bench.FileJSON))
	require.NoError(t, err)
	var back bench.Report
	require.NoError(t, json.Unmarshal(data, &back))
	require.Len(t, back.Results, configs)
	for i := range back.Results {
		assert.Equal(t, rep.Results[i].Algorithm, back.Results[i].Algorithm)
		assert.Equal(t, rep.Results[i].Cycles, back.Results[i].Cycles)
		assert.Equal(t, rep.Results[i].Acquire, back.Results[i].Acquire)
		assert.Equal(t, rep.Results[i].VsLimit, back.Results[i].VsLimit)
	}
	assert.Equal(t, "miniredis", back.Backend)
	assert.Equal(t, "lockbench --test", back.Command)
	assert.NotEmpty(t, back.Machine.GOOS)
	assert.Positive(t, back.Machine.Cores)
	assert.Len(t, back.Comparisons, len(rep.Comparisons))
	assert.Equal(t, rep.Limits, back.Limits)

	summary, err := os.ReadFile(filepath.Join(out, bench.FileSummary))
	require.NoError(t, err)
	for _, want := range []string{"Headline ratios", "harness overhead", "setpx vs redislock", "**raw**",
		"1ms plus up to 500µs of jitter", "miniredis", "lockbench --test",
		"The server's limit", "of limit", "1/(1/SET + 1/EVALSHA)"} {
		assert.Contains(t, string(summary), want)
	}
	// summary.md is bench.json's Doc: a reader of bench.json (the review
	// page) says exactly what summary.md says.
	read, err := bench.ReadReport(filepath.Join(out, bench.FileJSON))
	require.NoError(t, err)
	assert.Equal(t, bench.FormatVersion, read.Format)
	assert.Equal(t, string(summary), read.Summary())
}

// TestRawFansOutAtEveryNodeCount: raw runs beside the multi-node designs
// at their size, and their ratios are against it.
func TestRawFansOutAtEveryNodeCount(t *testing.T) {
	cfg := tinyConfig()
	cfg.Algorithms = []string{"redlock", bench.Raw}
	cfg.Nodes = []int{3}
	cfg.Clients = []int{2}
	cfg.Contention = []bench.Contention{bench.HotKey}
	cfg.Rounds = 3
	cfg.Duration = 300 * time.Millisecond
	cfg.TTL = 10 * time.Second // a node timeout of 1 s: a loaded machine does not time rounds out
	rep, err := bench.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, rep.Results, 2)
	for _, r := range rep.Results {
		assert.Equal(t, 3, r.Nodes, r.Algorithm)
		assert.Positive(t, r.Cycles, r.Algorithm)
		assert.Positive(t, r.Refused, "%s: two clients on one key are refused", r.Algorithm)
	}
	rl := rep.Results[0]
	require.Equal(t, "redlock", rl.Algorithm)
	assert.Positive(t, rl.VsRaw)
	assert.Equal(t, 3, rl.VsRawRounds.Rounds)
	var titles []string
	for _, c := range rep.Comparisons {
		titles = append(titles, c.Title)
	}
	assert.Contains(t, titles, "redlock vs raw fan-out, 3 nodes")
}

func TestWriteRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644))
	err := (&bench.Report{}).Write(dir)
	require.ErrorContains(t, err, "not empty")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the directory is left as it was")
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := tinyConfig()
	cfg.Duration = time.Minute
	cfg.Progress = func(bench.Progress) {}
	go func() { time.Sleep(150 * time.Millisecond); cancel() }()
	type ret struct {
		rep *bench.Report
		err error
	}
	done := make(chan ret, 1)
	go func() {
		rep, err := bench.Run(ctx, cfg)
		done <- ret{rep, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-time.After(simtest.HangGuard):
		t.Fatalf("hung: bench.Run has not returned %v after its cancel", simtest.HangGuard)
	}
	// Canceled, not a report: the cancel stopped the run, not the end of
	// its minute (how soon it stopped is no matter for a test)
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Nil(t, r.rep, "an interrupted run has no report to write")
}

func TestRunRejectsBadConfig(t *testing.T) {
	for name, mutate := range map[string]func(*bench.Config){
		"unknown design": func(c *bench.Config) { c.Algorithms = []string{"nope"} },
		"zero clients":   func(c *bench.Config) { c.Clients = []int{0} },
		"no design at 5": func(c *bench.Config) {
			c.Algorithms, c.Nodes = []string{"setpx", "redislock"}, []int{5}
		},
		"hold beyond TTL":  func(c *bench.Config) { c.Hold = time.Second },
		"unknown backend":  func(c *bench.Config) { c.Backend = "etcd" },
		"bad contention":   func(c *bench.Config) { c.Contention = []bench.Contention{"warm"} },
		"negative warm-up": func(c *bench.Config) { c.Warmup = -time.Second },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := tinyConfig()
			mutate(&cfg)
			_, err := bench.Run(context.Background(), cfg)
			require.ErrorIs(t, err, bench.ErrConfig)
		})
	}
}

func TestRunUnderScenario(t *testing.T) {
	sc := sim.Config{
		Algorithm: "setpx",
		// Retrying faster than the think time lets the clients take turns,
		// so that client 0 reaches its second acquire.
		Options:  lock.Options{Retry: lock.RetryPolicy{Interval: time.Millisecond}},
		Cluster:  sim.ClusterConfig{Backend: sim.BackendMiniredis, Nodes: 1},
		Clients:  2,
		Duration: 400 * time.Millisecond,
		Hold:     5 * time.Millisecond,
		Think:    5 * time.Millisecond,
		Faults: []sim.Planned{{
			Fault: faults.PauseClient{Client: 0},
			Start: sim.Trigger{Point: "after-acquire", Client: 0, Nth: 2},
			For:   100 * time.Millisecond,
		}},
	}
	rep, err := bench.Run(context.Background(), bench.Config{Under: []sim.Config{sc}, UnderName: "test-pause"})
	require.NoError(t, err)
	require.NotNil(t, rep.Under)
	require.Len(t, rep.Under.Runs, 1)
	run := rep.Under.Runs[0]
	require.Len(t, run.Faults, 1)
	assert.Contains(t, run.Faults[0].Fault, "pause-client 0")
	assert.Less(t, run.Faults[0].StartS, run.Faults[0].EndS)
	require.Len(t, rep.Results, 1)
	r := rep.Results[0]
	assert.Equal(t, "test-pause", r.Scenario)
	assert.Positive(t, r.Cycles)
	assert.True(t, r.Acquire.Monotone())
	// Client 1 waited for the paused holder at least once.
	assert.GreaterOrEqual(t, r.Acquire.Max, 50_000.0, "µs")

	out := filepath.Join(t.TempDir(), "under")
	require.NoError(t, rep.Write(out))
	for _, f := range []string{bench.FileCSV, bench.FileJSON, bench.FileSummary, "timeline.svg", "timeline.png", "history-setpx.jsonl"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NoError(t, err, f)
	}
	h, err := os.Open(filepath.Join(out, "history-setpx.jsonl"))
	require.NoError(t, err)
	defer h.Close()
	hist, err := history.ReadJSONL(h)
	require.NoError(t, err)
	assert.NotEmpty(t, hist.Ops)

	summary, err := os.ReadFile(filepath.Join(out, bench.FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "pause-client 0")
	assert.Contains(t, string(summary), "![timeline](timeline.png)")
	read, err := bench.ReadReport(filepath.Join(out, bench.FileJSON))
	require.NoError(t, err)
	assert.Equal(t, string(summary), read.Summary())
}

// TestRunOnACluster: on redis-cluster the single-node designs and raw run
// through one cluster client each, in both contention modes, and
// Redlock is left out with why; the report names the backend.
func TestRunOnACluster(t *testing.T) {
	simtest.RequireRedisServer(t)
	cfg := tinyConfig()
	cfg.Backend = sim.BackendRedisCluster
	cfg.Algorithms = []string{"setpx", "redlock", bench.Raw}
	cfg.Nodes = nil // the default: one cluster of three masters
	cfg.Clients = []int{2}
	cfg.Rounds = 3
	cfg.Duration = 300 * time.Millisecond
	rep, err := bench.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, rep.Results, 4, "setpx and raw, per-client and hot")
	for _, r := range rep.Results {
		name := r.Algorithm + "/" + string(r.Contention)
		assert.Equal(t, bench.DefaultClusterMasters, r.Nodes, name)
		assert.Positive(t, r.Cycles, name)
		assert.Zero(t, r.Errors, name)
		if r.Contention == bench.HotKey {
			assert.Positive(t, r.Refused, "%s: two clients on one key are refused", name)
		}
	}
	assert.Contains(t, rep.Backend, "redis-cluster of 3 masters")
	assert.Contains(t, rep.Notes, bench.ClusterNote)
	assert.Contains(t, rep.Notes, "redlock not measured: on redis-cluster one lock key lives on one master, and Redlock needs independent masters")
	require.NotEmpty(t, rep.Limits)
	assert.Positive(t, rep.Limits[0].CyclePerS)

	cfg.Nodes = []int{3, 5}
	_, err = bench.Run(context.Background(), cfg)
	require.ErrorIs(t, err, bench.ErrConfig)
	assert.Contains(t, err.Error(), "nodes [3 5]: on redis-cluster give one size")
}
