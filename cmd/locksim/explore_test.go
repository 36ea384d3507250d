package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vtime"
)

// executeVirtual is execute with a virtual-time host, as main has one.
func executeVirtual(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.ExecuteContext(vtime.NewContext(context.Background(), vtime.ForTest(t)))
	if err != nil {
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), exitCodeOf(err)
}

func TestExploreBadInput(t *testing.T) {
	// An exploration's directory, and one whose counts no exploration writes.
	good := filepath.Join(t.TempDir(), "setpx")
	require.NoError(t, os.MkdirAll(good, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(good, "explore.json"), []byte(`{"algorithm":"setpx","runs":10,"violations":[]}`), 0o644))
	negative := filepath.Join(t.TempDir(), "setpx")
	require.NoError(t, os.MkdirAll(negative, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(negative, "explore.json"), []byte(`{"algorithm":"setpx","runs":-5,"violations":[]}`), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no algos", []string{"explore"}, "--algos"},
		{"unknown algo", []string{"explore", "--algos", "paxos"}, `"paxos"`},
		{"unknown kind", []string{"explore", "--algos", "setpx", "--kinds", "meteor"}, "--kinds meteor"},
		{"shard out of range", []string{"explore", "--algos", "setpx", "--shard", "2/2"}, `--shard "2/2"`},
		{"shard not i/n", []string{"explore", "--algos", "setpx", "--shard", "half"}, `--shard "half"`},
		{"zero runs", []string{"explore", "--algos", "setpx", "--runs", "0"}, "--runs 0"},
		{"runs and for", []string{"explore", "--algos", "setpx", "--runs", "5", "--for", "1m"}, "--runs and --for"},
		{"bad confirm", []string{"explore", "--algos", "setpx", "--confirm", "etcd"}, `--confirm "etcd"`},
		{"failover on redlock", []string{"explore", "--algos", "redlock", "--kinds", "failover"}, "--kinds failover"},
		{"process design", []string{"explore", "--algos", "redis-py"}, "--algos redis-py: explore runs in virtual time; redis-py is a process design that runs in real time only"},
		{"process design by command", []string{"explore", "--algos", "setpx,node-redlock"}, "node-redlock is a process design that runs in real time only"},
		{"timeout shorter than for", []string{"explore", "--algos", "setpx", "--for", "1m", "--timeout", "30s"}, "--timeout 30s: shorter than --for 1m0s"},
		{"zero timeout", []string{"explore", "--algos", "setpx", "--timeout", "0s"}, "--timeout 0s: must be positive"},
		{"sweep without faults", []string{"explore", "--algos", "setpx", "--exhaustive", "--kinds", "none"}, "--exhaustive --kinds none"},
		{"merge nothing there", []string{"explore", "merge", t.TempDir()}, "explore.json"},
		{"merge negative runs", []string{"explore", "merge", negative}, "runs -5: must not be negative"},
		{"merge out not writable", []string{"explore", "merge", good, "--out", "/proc/locksim-merged"}, `--out "/proc/locksim-merged": /proc is not writable`},
		{"merge one directory twice", []string{"explore", "merge", good, good}, "given twice"},
		{"merge a directory and its parent", []string{"explore", "merge", filepath.Dir(good), good}, "given twice"},
		{"out not writable", []string{"explore", "--algos", "setpx", "--out", "/proc/locksim-explore"}, `--out "/proc/locksim-explore": /proc is not writable`},
		{"out under a file", []string{"explore", "--algos", "setpx", "--out", "/dev/null/x"}, `--out "/dev/null/x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := execute(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "\n", "one clear line")
		})
	}
}

// Fault-free setpx: nothing found, exit 0; setnx-expire under crashes:
// violations, exit 1, with the JSON shape; the two merge into one summary.
func TestExploreCommandAndMerge(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	stdout, stderr, code := executeVirtual(t, "explore", "--algos", "setpx", "--kinds", "none", "--runs", "10",
		"--duration", "500ms", "--confirm", "none", "--out-dir", clean)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "setpx: 10 runs")
	assert.FileExists(t, filepath.Join(clean, "setpx", "summary.md"))

	found := filepath.Join(dir, "found")
	stdout, stderr, code = executeVirtual(t, "explore", "--algos", "setnx-expire", "--kinds", "crash-client", "--runs", "200",
		"--max-faults", "3", "--duration", "1s", "--confirm", "none", "--json", "--out-dir", found)
	require.Equal(t, exitMismatch, code, stderr)
	var rep struct {
		Algorithm  string  `json:"algorithm"`
		Runs       int     `json:"runs"`
		RunsPerMin float64 `json:"runs_per_min"`
		Causes     []struct {
			Check, Verdict, Faults, Scenario, Replay string
			FaultCount                               int   `json:"fault_count"`
			Violations                               []int `json:"violations"`
		} `json:"causes"`
		Violations []struct {
			Check, Verdict, Signature, Scenario string
			Seed                                uint64
			FaultsBefore                        int `json:"faults_before"`
			FaultsAfter                         int `json:"faults_after"`
			Reproduced                          struct{ Virtual, Redis string }
		} `json:"violations"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.Equal(t, "setnx-expire", rep.Algorithm)
	assert.Equal(t, 200, rep.Runs)
	require.NotEmpty(t, rep.Violations)
	require.NotEmpty(t, rep.Causes, "--json carries the causes")
	c := rep.Causes[0]
	assert.Equal(t, "liveness", c.Check)
	assert.Contains(t, c.Faults, "crash-client")
	assert.Equal(t, "locksim run "+c.Scenario, c.Replay)
	assert.NotEmpty(t, c.Violations)
	v := rep.Violations[0]
	assert.FileExists(t, v.Scenario)
	assert.NotEmpty(t, v.Reproduced.Virtual)

	// The shrunk scenario replays with locksim run.
	_, stderr, code = executeVirtual(t, "run", v.Scenario, "--out", filepath.Join(dir, "replay"))
	assert.Equal(t, exitOK, code, "locksim run %s: %s", v.Scenario, stderr)

	merged := filepath.Join(dir, "merged")
	stdout, stderr, code = execute(t, "explore", "merge", clean, found, "--out-dir", merged)
	require.Equal(t, exitMismatch, code, stderr)
	assert.Contains(t, stdout, "setpx: 10 runs")
	assert.Contains(t, stdout, "setnx-expire: 200 runs")
	_, err := os.Stat(filepath.Join(merged, "setnx-expire", "explore.json"))
	assert.NoError(t, err)
}

// --for alone is the whole command's wall time: a short one finishes
// within it and a generous margin (the machine is shared), prints its
// split on stderr, and keeps stdout to a line per cause and a few counts.
func TestExploreKeepsItsBudget(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	start := time.Now()
	stdout, stderr, code := executeVirtual(t, "explore", "--algos", "setnx-expire", "--for", "3s", "--confirm", "none", "--out-dir", out)
	took := time.Since(start)
	require.Equal(t, exitMismatch, code, stderr)
	assert.Less(t, took, 3*time.Second+20*time.Second, "--for 3s is the whole command")
	assert.Contains(t, stderr, "3s in all: search 1s (until ")
	assert.Contains(t, stderr, "replay and write 1s; done by ")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	assert.LessOrEqual(t, len(lines), 22, "a line per cause and a few counts:\n%s", stdout)
	assert.Regexp(t, `\d+ causes?; summary `, stdout)
	summary, err := os.ReadFile(filepath.Join(out, "setnx-expire", "summary.md"))
	require.NoError(t, err)
	causes, sigs := strings.Index(string(summary), "## Causes"), strings.Index(string(summary), "## Signatures")
	require.Positive(t, causes)
	assert.Greater(t, sigs, causes, "the causes lead")
	assert.Contains(t, string(summary), "`[]` means no fault was active at the witness")
}

// With confirmation on redis-server the whole still fits --timeout.
func TestExploreKeepsItsBudgetConfirming(t *testing.T) {
	simtest.RequireRedisServer(t)
	out := filepath.Join(t.TempDir(), "x")
	start := time.Now()
	_, stderr, code := executeVirtual(t, "explore", "--algos", "setnx-expire", "--for", "2s", "--timeout", "8s", "--confirm", "redis", "--out-dir", out)
	took := time.Since(start)
	require.Equal(t, exitMismatch, code, stderr)
	assert.Less(t, took, 8*time.Second+20*time.Second, "--timeout 8s is the whole command")
	assert.Contains(t, stderr, "8s in all: search 2s (until ")
	assert.Contains(t, stderr, ", confirm ")
}

// --exhaustive sweeps every single fault and states the bound on stdout,
// in summary.md and in the JSON; summary.md has the coverage grid.
func TestExploreExhaustiveStatesTheBound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	stdout, stderr, code := executeVirtual(t, "explore", "--algos", "fenced", "--kinds", "crash-client", "--exhaustive",
		"--duration", "1s", "--confirm", "none", "--out-dir", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "exhaustive (every single-fault schedule)")
	assert.Regexp(t, `\n  fenced: no violation under any single crash-client fault at any of its \d+ points \([\d,]+ schedules; 2 clients, 1 node, ttl 500ms\)\n`, stdout)
	summary, err := os.ReadFile(filepath.Join(out, "fenced", "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "## Bounded sweep\n\n**fenced: no violation under any single crash-client fault")
	assert.Contains(t, string(summary), "## Coverage: points x fault kinds")

	stdout, stderr, code = executeVirtual(t, "explore", "--algos", "fenced", "--kinds", "crash-client", "--exhaustive",
		"--duration", "1s", "--confirm", "none", "--json", "--out-dir", filepath.Join(t.TempDir(), "json"))
	require.Equal(t, exitOK, code, stderr)
	var rep struct {
		Sweep struct {
			Statement string
			Singles   struct{ Exist, Ran int }
		}
		Coverage struct{ Points, Kinds []string }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.Contains(t, rep.Sweep.Statement, "fenced: no violation under any single crash-client fault")
	assert.Equal(t, rep.Sweep.Singles.Exist, rep.Sweep.Singles.Ran)
	assert.Contains(t, rep.Coverage.Kinds, "crash-client")
}
