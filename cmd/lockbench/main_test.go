package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/exitcode"
	"github.com/locksim/locksim/sim"
)

// parse runs the flag parsing and checking alone, without measuring.
func parse(t *testing.T, args ...string) (bench.Config, string, error) {
	t.Helper()
	var f flags
	cmd := &cobra.Command{Use: "lockbench"}
	f.register(cmd.Flags())
	require.NoError(t, cmd.Flags().Parse(args))
	return f.config(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
}

func TestFlagValidation(t *testing.T) {
	nonEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644))
	file := filepath.Join(nonEmpty, "x")
	links := t.TempDir()
	dangling, toEmpty, empty := filepath.Join(links, "dangling"), filepath.Join(links, "to-empty"), filepath.Join(links, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(links, "nowhere"), dangling))
	require.NoError(t, os.Symlink(empty, toEmpty))
	for _, tc := range []struct {
		args []string
		want string // the one-line error names the flag and value
	}{
		{[]string{"--backend", "etcd"}, `--backend "etcd"`},
		{[]string{"--clients", "0"}, `--clients 0: 0 is outside [1, 1000]`},
		{[]string{"--clients", "1001"}, `--clients 1001: 1001 is outside [1, 1000]`}, // as locksim run's --clients
		{[]string{"--clients", "4,4"}, `--clients 4,4: 4 given twice`},
		{[]string{"--clients", "4", "--clients", "4"}, `--clients 4,4: 4 given twice`},
		{[]string{"--nodes", "0"}, `--nodes 0: 0 is outside [1, 9]`},
		{[]string{"--nodes", "12"}, `--nodes 12`},
		{[]string{"--algos", "setpx,nope"}, `--algos setpx,nope: unknown algorithm "nope"`},
		{[]string{"--algos", "setpz"}, `--algos setpz: unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"--algos", "setpx,setpx"}, `--algos setpx,setpx: setpx given twice`},
		{[]string{"--algos", ""}, `--algos "": no design given`},
		{[]string{"--algos", "all,setpx"}, `--algos all,setpx: all stands alone`},
		{[]string{"--contention", "warm"}, `--contention warm: unknown contention "warm"`},
		{[]string{"--contention", ""}, `--contention "": give per-client, hot or both`},
		{[]string{"--timeout", "0s"}, `--timeout 0s: must be positive`},
		{[]string{"--duration", "0s"}, `--duration 0s`},
		{[]string{"--rounds", "0"}, `--rounds 0`},
		{[]string{"--warmup", "-1s"}, `--warmup -1s`},
		{[]string{"--hold", "300ms"}, `--hold 300ms`},
		{[]string{"--ttl", "0s"}, `--ttl 0s`},
		{[]string{"--retry", "0s"}, `--retry 0s`},
		{[]string{"--algos", "redlock", "--nodes", "1"}, `--nodes [1]: no design among redlock runs at these sizes`},
		{[]string{"--out-dir", nonEmpty}, `--out-dir "` + nonEmpty + `": exists and is not empty`},
		{[]string{"--out", file}, `--out "` + file + `": exists and is not a directory`},
		{[]string{"--out", filepath.Join(file, "bench")}, `--out "` + filepath.Join(file, "bench") + `": not a directory`},
		{[]string{"--out", "/dev/null/x"}, `--out "/dev/null/x": not a directory`},
		{[]string{"--out", dangling}, `--out "` + dangling + `": is a symlink to ` + filepath.Join(links, "nowhere") + `, which does not exist`},
		{[]string{"--out-dir", toEmpty}, `--out-dir "` + toEmpty + `": is a symlink (to ` + empty + `): give the directory itself`},
		{[]string{"--out", "a", "--out-dir", "b"}, `--out and --out-dir: give one`},
		{[]string{"--out", "/proc/lockbench"}, `--out "/proc/lockbench": /proc is not writable`},
		{[]string{"--redis-server", "/no/such/redis-server"}, `--redis-server "/no/such/redis-server"`},
		{[]string{"--under", "no-such-scenario"}, `--under "no-such-scenario": scenario "no-such-scenario": neither a built-in`},
		{[]string{"--under", "control-contention", "--clients", "4"}, `--clients: not with --under`},
		{[]string{"--under", "control-contention", "--algos", "raw"}, `--algos raw: raw is not a lock design`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, _, err := parse(t, tc.args...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestFlagDefaults(t *testing.T) {
	cfg, out, err := parse(t)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("results", "lockbench", "20300102T030405Z"), out)
	assert.Equal(t, sim.BackendRedis, cfg.Backend)
	assert.Equal(t, bench.DefaultAlgorithms(), cfg.Algorithms)
	assert.Equal(t, []int{1, 4, 16, 64}, cfg.Clients)
	assert.Equal(t, []int{1, 3, 5}, cfg.Nodes)
	assert.Equal(t, []bench.Contention{bench.KeyPerClient, bench.HotKey}, cfg.Contention)
	assert.Equal(t, time.Millisecond, cfg.RetryInterval)
}

// TestListFlags: the lists take commas or repeats, and
// "both" is every contention.
func TestListFlags(t *testing.T) {
	cfg, _, err := parse(t, "--algos", "setpx", "--algos", "raw", "--clients", "1,4", "--clients", "16",
		"--nodes", "1", "--contention", "both")
	require.NoError(t, err)
	assert.Equal(t, []string{"setpx", "raw"}, cfg.Algorithms)
	assert.Equal(t, []int{1, 4, 16}, cfg.Clients)
	assert.Equal(t, []int{1}, cfg.Nodes)
	assert.Equal(t, bench.Contentions(), cfg.Contention)

	cfg, _, err = parse(t, "--quick", "--algos", "redlock,redsync")
	require.NoError(t, err)
	assert.Equal(t, []string{"redlock", "redsync"}, cfg.Algorithms, "--algos overrides --quick's designs")

	cfg, _, err = parse(t, "--seed", "7", "--under", "control-contention", "--algos", "setpx")
	require.NoError(t, err)
	plain, _, err := parse(t, "--under", "control-contention", "--algos", "setpx")
	require.NoError(t, err)
	assert.Equal(t, plain.Under[0].Seed+7, cfg.Under[0].Seed, "--seed is the base the scenario's seed is added to")
}

func TestQuickGivesWayToExplicitFlags(t *testing.T) {
	cfg, _, err := parse(t, "--quick")
	require.NoError(t, err)
	q := bench.Quick()
	assert.Equal(t, q.Algorithms, cfg.Algorithms)
	assert.Equal(t, q.Clients, cfg.Clients)
	assert.Equal(t, q.Duration, cfg.Duration)

	cfg, _, err = parse(t, "--quick", "--clients", "2", "--duration", "2s")
	require.NoError(t, err)
	assert.Equal(t, []int{2}, cfg.Clients)
	assert.Equal(t, 2*time.Second, cfg.Duration)
	assert.Equal(t, q.Nodes, cfg.Nodes)
}

func TestUnderResolvesTheScenario(t *testing.T) {
	cfg, _, err := parse(t, "--under", "control-contention", "--algos", "setpx,redlock")
	require.NoError(t, err)
	assert.Equal(t, "control-contention", cfg.UnderName)
	require.Len(t, cfg.Under, 2)
	assert.Equal(t, "setpx", cfg.Under[0].Algorithm)
	assert.Equal(t, sim.BackendRedis, cfg.Under[0].Cluster.Backend, "lockbench's backend when the scenario names none")
	assert.Equal(t, 8, cfg.Under[0].Clients)
}

func TestExitCodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--clients", "0"}, &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "lockbench: --clients 0: 0 is outside [1, 1000]\n", stderr.String())

	// Values pflag cannot parse: one line naming the flag and the value.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "1,x"}, `lockbench: --clients "1,x": want whole numbers, comma-separated` + "\n"},
		{[]string{"--duration", "soon"}, `lockbench: --duration "soon": want a duration such as 500ms or 3s` + "\n"},
		{[]string{"--timeout", "-"}, `lockbench: --timeout "-": want a duration such as 500ms or 3s` + "\n"},
		{[]string{"--rounds", "many"}, `lockbench: --rounds "many": want a whole number` + "\n"},
		{[]string{"--seed", "-1"}, `lockbench: --seed "-1": want a whole number, 0 or more` + "\n"},
	} {
		stderr.Reset()
		assert.Equal(t, exitUsage, run(context.Background(), tc.args, &stdout, &stderr), tc.args)
		assert.Equal(t, tc.want, stderr.String())
	}

	stderr.Reset()
	assert.Equal(t, exitUsage, run(context.Background(), []string{"--no-such-flag"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no-such-flag")

	assert.Equal(t, exitOK, run(context.Background(), []string{"--help"}, &stdout, &stderr))
}

func TestRunWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--backend", "miniredis", "--algos", "setpx,raw", "--clients", "1",
		"--nodes", "1", "--contention", "per-client", "--duration", "100ms", "--rounds", "1", "--warmup", "10ms",
		"--out-dir", out}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "warning: miniredis")
	assert.Contains(t, stderr.String(), "[2/2]", "progress on stderr, plain lines when it is not a terminal")
	assert.NotContains(t, stdout.String(), "[2/2]", "stdout holds the results alone")
	assert.Contains(t, stdout.String(), "harness overhead")
	for _, f := range []string{bench.FileCSV, bench.FileJSON, bench.FileSummary, "throughput.png", "cdf.svg"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NoError(t, err, f)
	}
}

// TestTimeoutBoundsTheRun: --timeout stops the measuring; nothing is
// written and the exit code is 3, as for an interrupt.
func TestTimeoutBoundsTheRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--backend", "miniredis", "--algos", "setpx,raw", "--clients", "1", "--nodes", "1",
		"--duration", "1m", "--timeout", "300ms", "--out-dir", out}, &stdout, &stderr)
	assert.Equal(t, exitcode.Failed, code)
	assert.Contains(t, stderr.String(), "lockbench: --timeout 300ms ran out before the measuring was done")
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Empty(t, entries, "neither results nor a temporary directory")
}

func TestInterruptWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--backend", "miniredis", "--algos", "setpx,raw", "--clients", "1", "--nodes", "1",
		"--duration", "1m", "--out-dir", out}, &stdout, &stderr)
	assert.Equal(t, exitInterrupted, code)
	assert.Contains(t, stderr.String(), "nothing written")
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Empty(t, entries, "neither results nor a temporary directory")
}

// tinyRun is the smallest sweep the command can measure, on miniredis.
func tinyRun(out string, extra ...string) []string {
	return append([]string{"--backend", "miniredis", "--algos", "setpx,raw", "--clients", "1",
		"--nodes", "1", "--contention", "per-client", "--duration", "150ms", "--rounds", "3", "--warmup", "10ms",
		"--out-dir", out}, extra...)
}

// TestJSONOnStdout: --json prints the results alone on stdout, one object
// per design and cell, raw included; progress goes to stderr.
func TestJSONOnStdout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), tinyRun(out, "--json"), &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	var got struct {
		Results []map[string]any `json:"results"`
		Out     string           `json:"out"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), "stdout is one JSON document: %s", stdout.String())
	require.Len(t, got.Results, 2)
	var designs []any
	for _, r := range got.Results {
		designs = append(designs, r["design"])
		for _, k := range []string{"design", "nodes", "clients", "contention", "cycles_per_s", "acquire_p50_us",
			"acquire_p99_us", "cycle_p99_us", "allocs_per_cycle"} {
			assert.Contains(t, r, k)
		}
	}
	assert.ElementsMatch(t, []any{"setpx", "raw"}, designs)
	assert.Equal(t, out, got.Out)
	assert.Contains(t, stderr.String(), "[6/6]", "progress on stderr")
}

// TestBaselineExitsOneWhenARatioFell: a baseline whose setpx ran at ten
// times raw in every round cannot be matched; the run exits 1 naming the
// ratio and the command that made the baseline. --save-baseline writes a
// baseline the next run reads; a baseline that is not a run is bad input.
func TestBaselineExitsOneWhenARatioFell(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.json")
	r := bench.Ratio{Design: "setpx", Against: "raw", Nodes: 1, Clients: 1, Contention: bench.KeyPerClient,
		Spread: bench.Spread{Median: 10, Min: 10, Max: 10, Rounds: 3}}
	require.NoError(t, bench.WriteBaseline(base, bench.Baseline{Format: bench.BaselineFormat,
		Runs: []bench.BaselineRun{{Command: "lockbench --made-by-hand", Ratios: []bench.Ratio{r}}}}))

	var stdout, stderr bytes.Buffer
	saved := filepath.Join(t.TempDir(), "saved.json")
	code := run(context.Background(), tinyRun(filepath.Join(t.TempDir(), "run"), "--baseline", base, "--save-baseline", saved), &stdout, &stderr)
	assert.Equal(t, exitDiffers, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "fell since the baseline: setpx vs raw, 1 node, fell in 1 of 1 cells by more than 10% beyond every round: at 1 clients per-client from 10.00 (lowest round 10.00)")
	assert.Contains(t, stderr.String(), "(1 run(s), the last made by: lockbench --made-by-hand)")

	b, err := bench.ReadBaseline(saved)
	require.NoError(t, err)
	require.Len(t, b.Runs, 1)
	assert.Contains(t, b.Runs[0].Command, "--save-baseline "+saved)
	require.Len(t, b.Ratios(), 1)
	assert.Equal(t, "setpx", b.Ratios()[0].Design)

	// a second run is added to the file
	code = run(context.Background(), tinyRun(filepath.Join(t.TempDir(), "run"), "--save-baseline", saved), &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	b, err = bench.ReadBaseline(saved)
	require.NoError(t, err)
	assert.Len(t, b.Runs, 2)

	stderr.Reset()
	code = run(context.Background(), tinyRun(filepath.Join(t.TempDir(), "run"), "--baseline", t.TempDir()), &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "--baseline")
	assert.Contains(t, stderr.String(), "bench.json")

	stderr.Reset()
	code = run(context.Background(), []string{"--backend", "miniredis", "--under", "gc-pause-after-check", "--baseline", base,
		"--out-dir", filepath.Join(t.TempDir(), "run")}, &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "--baseline: not with --under")
}

// TestPartialDirsAreReclaimed: the unfinished result directories a killed
// lockbench left beside --out are removed by the next run when their owner
// is gone, in one line; a running process's stay, and so does a published
// run.
func TestPartialDirsAreReclaimed(t *testing.T) {
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	parent := t.TempDir()
	deadRun := filepath.Join(parent, ".20260101T000000Z.partial-pid"+dead+"-123")
	liveRun := filepath.Join(parent, ".20260101T000001Z.partial-pid"+live+"-456")
	kept := filepath.Join(parent, "20260101T000000Z")
	for _, d := range []string{deadRun, liveRun, kept} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, "x"), 0o755))
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), tinyRun(filepath.Join(parent, "run")), &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "lockbench: removed 1 unfinished result directory that ended runs left in "+parent+" (pid "+dead+")\n")
	assert.NoDirExists(t, deadRun)
	assert.DirExists(t, liveRun)
	assert.DirExists(t, kept)
}
