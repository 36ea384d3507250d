package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/locksim/locksim/sim/simtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		runAsMain()
		return
	}
	// runs here go through in-process toxiproxy (network faults), whose
	// stuck link goroutines simtest.LeakOptions explains
	goleak.VerifyTestMain(m, simtest.LeakOptions()...)
}

// execute runs the CLI in-process and returns stdout, stderr and the exit
// code main would use.
func execute(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), exitCodeOf(err)
}

// runDirs lists the run directories of scenario's design under the
// results root out: <stamp>-<design>-s<seed>, not the latest links.
func runDirs(out, scenario, design string) []string {
	runs, _ := filepath.Glob(filepath.Join(out, "locksim", scenario, "*-"+design+"-s*"))
	return runs
}

func TestExitCodesForBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\nalgorithm: setpx\nbogus: 1\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string // in the one-line error
	}{
		{"unknown scenario", []string{"run", "no-such-scenario"}, "no-such-scenario"},
		{"unknown algorithm", []string{"run", "--algos", "bogus"}, `"bogus"`},
		{"no scenario and no algo", []string{"run"}, "--algos"},
		{"unknown field in file", []string{"run", bad}, "bogus"},
		{"zero clients", []string{"run", "--algos", "setpx", "--clients", "0"}, "--clients 0"},
		{"too many clients", []string{"run", "--algos", "setpx", "--clients", "100000"}, "--clients 100000: at most 1000"},
		{"too many nodes", []string{"run", "--algos", "redlock", "--nodes", "33"}, "--nodes 33: at most 32"},
		{"too long", []string{"run", "--algos", "setpx", "--duration", "2h"}, "--duration 2h0m0s: at most 1h0m0s"},
		{"bad backend", []string{"run", "--algos", "setpx", "--backend", "etcd"}, `"etcd"`},
		{"negative ttl", []string{"run", "--algos", "setpx", "--ttl", "-1s"}, "--ttl"},
		{"check a non-run dir", []string{"check", dir}, dir},
		{"unknown flag", []string{"run", "--frobnicate"}, "frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := execute(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "\n", "one clear line")
		})
	}
}

func TestRunJSONAndRecheck(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := execute(t, "run", "--algos", "setpx", "--clients", "3", "--duration", "300ms", "--ttl", "200ms", "--json", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	var res jsonResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	require.Len(t, res.Runs, 1)
	r := res.Runs[0]
	assert.Equal(t, "setpx", r.Algorithm)
	assert.Equal(t, "safe", string(r.Verdict))
	for _, c := range []string{"exclusion", "claim", "fencing", "liveness"} {
		assert.Contains(t, r.Checks, c)
	}
	for _, f := range []string{"scenario.yaml", "history.jsonl", "verdict.json", "check.html", "timeline.svg", "timeline.png", "summary.md"} {
		assert.FileExists(t, filepath.Join(r.Dir, f))
	}
	assert.Regexp(t, `^\d{8}T\d{6}Z-setpx-s\d+$`, filepath.Base(r.Dir), "<stamp>-<design>-s<seed>")
	for _, link := range []string{"latest", "latest-setpx"} {
		latest, err := os.Readlink(filepath.Join(filepath.Dir(r.Dir), link))
		require.NoError(t, err, link)
		assert.Equal(t, filepath.Base(r.Dir), latest, link)
	}

	stdout, stderr, code = execute(t, "check", r.Dir)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "safe")
}

func TestMismatchExitsOne(t *testing.T) {
	// Expecting safe from a design that is unsafe under this pause must exit 1.
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(f, []byte(wrongExpectationYAML), 0o644))
	_, stderr, code := execute(t, "run", f, "--out", dir)
	assert.Equal(t, exitMismatch, code, stderr)
	assert.Contains(t, stderr, "differ")
}

func TestAlgosListsEveryDesign(t *testing.T) {
	stdout, _, code := execute(t, "algos")
	require.Equal(t, exitOK, code)
	for _, n := range []string{"naive", "setnx-expire", "setnx-getset", "lua-setnx", "lua-setnx-del", "setpx", "setpx-del", "reentrant", "rwlock", "rwlock-hash", "rwlock-counted", "redlock", "fenced", "redsync", "redislock"} {
		assert.Contains(t, stdout, n)
	}
	assert.Contains(t, stdout, "weakness:")
	assert.Contains(t, stdout, "source:")
}

func TestListPoints(t *testing.T) {
	stdout, _, code := execute(t, "list", "--points")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	assert.Equal(t, "before-acquire", lines[0], "the client loop's points first, in cycle order")
	for _, p := range []string{"after-check", "after-unwind", "between-setnx-and-expire", "watchdog-renew"} {
		assert.Contains(t, lines, p)
	}
}

// wrongExpectationYAML is Kleppmann's pause for setpx, which makes it
// unsafe, with safe expected: a run or a matrix of it must exit 1.
const wrongExpectationYAML = `name: wrong-expectation
doc: Kleppmann's pause (gc-pause-after-check), which makes setpx unsafe, expected safe.
algorithm: setpx
options: {ttl: 200ms}
clients: 2
duration: 1s
hold: 50ms
faults:
  - kind: pause-client # client 1 starts once client 0 holds the lock
    client: 1
    when: {point: before-acquire}
    until: {client: 0, point: after-acquire}
    for: 300ms
  - kind: pause-client
    client: 0
    when: {point: after-check}
    for: 500ms
    until: {client: 1, point: after-enter}
  - kind: crash-client
    client: 0
    when: {point: before-release}
expect:
  "*": safe
`

// TestOneLineResultWarnsWhenARunTestedLittle: a delay longer than
// node_timeout makes every acquire fail; the one-line result says the run
// tested little next to its verdict, which the warning leaves alone.
func TestOneLineResultWarnsWhenARunTestedLittle(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "slow.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: slow-links
algorithm: setpx
options: {node_timeout: 20ms}
clients: 1
duration: 300ms
faults:
  - kind: delay # in force before the first acquire is sent
    latency: 50ms
    when: {client: 0, point: before-acquire}
`), 0o644))
	// Unknown (exit 1: only safe passes when nothing is expected), or safe
	// when an attempt begun as the clients stop got the lock after the heal.
	stdout, stderr, code := executeGuarded(t, virtual(t), "run", file, "--out", filepath.Join(dir, "out"))
	assert.Contains(t, []int{exitOK, exitMismatch}, code, stderr)
	assert.Regexp(t, `^setpx +(UNKNOWN +nothing expected, and not safe|SAFE +nothing expected) +\[[^]]*\]  ⚠ no acquire succeeded[^\n]*  \S+-setpx-s0\n$`, stdout)
}

// TestListKinds: list --kinds prints every fault kind with its fields and
// whether external servers run it.
func TestListKinds(t *testing.T) {
	stdout, stderr, code := execute(t, "list", "--kinds")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^kill-node +node +restart_after,keep_data,for,until +no \(needs process control\)$`, stdout)
	assert.Regexp(t, `(?m)^delay +latency +client,node,groups,jitter,for,until +yes$`, stdout)
	_, _, code = execute(t, "list", "--kinds", "--points")
	assert.Equal(t, exitUsage, code)
}

// TestOneLineResultSaysNotPlayed: a pause that the run's end cut before
// its client got past it did not play the scenario: the one-line result
// says NOT PLAYED with the reason (never the checks' safe), the command
// exits 1, and `locksim check` of the run directory says the same from the
// history.
func TestOneLineResultSaysNotPlayed(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cut.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: cut-pause
algorithm: setpx
options: {ttl: 2s}
nodes: 1
clients: 2
duration: 760ms
hold: 500ms
faults:
  - {kind: pause-client, client: 0, when: {point: before-release}, for: 700ms}
expect:
  "*": safe
`), 0o644))
	stdout, stderr, code := executeGuarded(t, virtual(t), "run", file, "--out", filepath.Join(dir, "out"))
	assert.Equal(t, exitMismatch, code, stderr)
	assert.Regexp(t, `^setpx +NOT PLAYED fault 1 pause-client 0 \(client 0 at before-release #1, for 700ms\) was cut off by the run's end at 760ms, [^,]+ after it began, before client 0 got past it +\[exclusion safe, [^]]*\].*  (\S+-setpx-s0)\n$`, stdout)
	assert.NotContains(t, stdout, "SAFE")

	runDir := strings.Fields(stdout)[len(strings.Fields(stdout))-1]
	stdout, stderr, code = executeGuarded(t, virtual(t), "check", runDir)
	assert.Equal(t, exitMismatch, code, stderr)
	assert.Contains(t, stdout, "  NOT PLAYED: fault 1 pause-client 0")
	assert.Contains(t, stderr, "did not play cut-pause")
}
