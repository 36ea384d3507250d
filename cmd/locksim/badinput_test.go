package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
)

// TestBadInputTable: every kind of bad input exits 2 with one line naming
// the field and the value, never panics, and leaves no result behind.
func TestBadInputTable(t *testing.T) {
	const head = "name: bad\nalgorithm: redlock\nnodes: 5\nclients: 2\nduration: 300ms\n"
	for _, tc := range []struct {
		name  string
		yaml  string
		wants []string // all must appear in the one-line error
	}{
		{"malformed yaml", "name: bad\nalgorithm: [setpx\n", []string{"s.yaml:"}},
		{"unknown field", head + "colour: blue\n", []string{"s.yaml:6", "colour"}},
		{"unknown algorithm", "name: bad\nalgorithm: paxos\n", []string{"s.yaml:2", "paxos"}},
		{"unknown fault kind", head + "faults:\n  - {kind: meteor, at: 1s}\n", []string{"s.yaml:7", "meteor"}},
		{"negative duration", head + "hold: -5ms\n", []string{"s.yaml:6", "hold", "-5ms"}},
		{"zero duration", "name: bad\nalgorithm: setpx\nduration: 0s\n", []string{"s.yaml:3", "duration", "0s"}},
		{"bad duration", "name: bad\nalgorithm: setpx\nduration: soon\n", []string{"s.yaml:3", "duration", "soon"}},
		{"client out of range", head + "faults:\n  - {kind: pause-client, client: 7, at: 1ms}\n", []string{"s.yaml:7", "client", "7"}},
		{"node out of range", head + "faults:\n  - {kind: kill-node, node: 9, at: 1ms}\n", []string{"s.yaml:7", "node", "9"}},
		{"nodes zero", "name: bad\nalgorithm: setpx\nnodes: 0\n", []string{"s.yaml:3", "nodes", "0"}},
		{"clients over the limit", "name: bad\nalgorithm: setpx\nclients: 100000\n", []string{"s.yaml:3", "clients", "at most 1000", "100000"}},
		{"nodes over the limit", "name: bad\nalgorithm: redlock\nnodes: 500\n", []string{"s.yaml:3", "nodes", "at most 32", "500"}},
		{"keys over the limit", "name: bad\nalgorithm: setpx\nkeys: 1000000\n", []string{"s.yaml:3", "keys", "at most 10000", "1000000"}},
		{"replicas over the limit", "name: bad\nalgorithm: setpx\nreplicas: 2\n", []string{"s.yaml:3", "replicas", "2"}},
		{"duration over the limit", "name: bad\nalgorithm: setpx\nduration: 100h\n", []string{"s.yaml:3", "duration", "at most 1h0m0s", "100h"}},
		{"too many faults", "name: bad\nalgorithm: setpx\nfaults:\n" + strings.Repeat("  - {kind: pause-client, client: 0, at: 1ms, for: 1ms}\n", 1001),
			[]string{"s.yaml:3", "faults", "at most 1000", "1001"}},
		{"more than memory holds", "name: bad\nalgorithm: setpx\nclients: 1000\nduration: 1h\nhold: 1ms\nthink: 1ms\n",
			[]string{"clients 1000", "memory"}},
		{"name longer than a file name allows", "name: " + strings.Repeat("n", 300) + "\nalgorithm: setpx\n",
			[]string{"s.yaml:1", "name", "at most 100 characters", "300 characters"}},
		{"majority never reached", head + "faults:\n" +
			"  - {kind: kill-node, node: 0, at: 1ms}\n  - {kind: kill-node, node: 1, at: 1ms}\n  - {kind: pause-node, node: 2, at: 1ms}\n",
			[]string{"faults", "majority", "3 down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "s.yaml")
			require.NoError(t, os.WriteFile(f, []byte(tc.yaml), 0o644))
			out := filepath.Join(dir, "results")
			_, stderr, code := execute(t, "run", f, "--out", out)
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(stderr)
			assert.NotContains(t, msg, "\n", "one line")
			for _, w := range tc.wants {
				assert.Contains(t, msg, w)
			}
			assert.NoDirExists(t, out, "bad input writes no result")
		})
	}
}

func TestMissingRedisServerIsBadInput(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no redis-server anywhere
	out := filepath.Join(t.TempDir(), "results")
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--backend", "redis", "--duration", "100ms", "--out", out)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "apt-get install redis-server")
	assert.NoDirExists(t, out)
}

func TestTTLShorterThanHoldWarns(t *testing.T) {
	out := t.TempDir()
	_, stderr, _ := execute(t, "run", "--algos", "setpx", "--ttl", "50ms", "--hold", "80ms", "--duration", "200ms", "--out", out)
	assert.Contains(t, stderr, "warning: hold 80ms is not shorter than ttl 50ms")
}

// TestTimeoutBoundsTheRun: --timeout stops a run that would go on, marks it
// incomplete and exits 3, however long the scenario's duration.
func TestTimeoutBoundsTheRun(t *testing.T) {
	out := t.TempDir()
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--duration", "30s", "--timeout", "400ms", "--out", out)
	assert.Equal(t, exitHarness, code, stderr)
	assert.Contains(t, stderr, "--timeout 400ms ran out: 0 of 1 designs ran; setpx was cut short")
	assert.Contains(t, stderr, "incomplete")
	// What it recorded ended long before the 30 s the run asked for.
	runs, _ := filepath.Glob(filepath.Join(out, "locksim", "adhoc", "*"))
	var last time.Duration
	for _, r := range runs {
		f, err := os.Open(filepath.Join(r, report.FileHistory))
		if err != nil {
			continue
		}
		h, err := history.ReadJSONL(f)
		f.Close()
		require.NoError(t, err)
		for _, op := range h.Ops {
			last = max(last, op.Return)
		}
	}
	require.NotEmpty(t, runs, "the partial run is kept")
	assert.Less(t, last, 30*time.Second, "the run was cut short, not played to its duration")
}

// TestBadOutPathTable: an --out that cannot hold results is refused as bad
// input (exit 2, one line naming --out) before any node starts, by run and
// by matrix. The runs asked for would take 30 s and start redis-server
// processes; neither happens.
func TestBadOutPathTable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("not a directory\n"), 0o644))
	readOnly := filepath.Join(dir, "read-only")
	require.NoError(t, os.Mkdir(readOnly, 0o555))
	cases := []struct {
		name, out, want string
	}{
		{"parent is a file", filepath.Join(file, "results"), "not a directory"},
		{"under /dev/null", "/dev/null/x", "not a directory"},
		{"existing non-empty file", file, "exists and is not a directory"},
		{"parent cannot take entries", "/proc/locksim-results", "not writable"},
	}
	if os.Geteuid() != 0 { // root writes into a 0555 directory
		cases = append(cases, struct{ name, out, want string }{"read-only directory", filepath.Join(readOnly, "results"), "not writable"})
	}
	for _, tc := range cases {
		for _, cmd := range [][]string{
			{"run", "--algos", "setpx", "--backend", "redis", "--duration", "30s"},
			{"matrix", "--scenarios", "control-contention", "--algos", "setpx"},
		} {
			testBadOut(t, tc.name+"/"+cmd[0], cmd, tc.out, tc.want)
		}
	}
	// The runs go to <out>/locksim: a file there is found before the run,
	// not when its report is due (CI once built its binary there).
	holder := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(holder, "locksim"), []byte("a binary\n"), 0o755))
	testBadOut(t, "runs dir is a file/run", []string{"run", "--algos", "setpx", "--backend", "redis", "--duration", "30s"}, holder, "locksim inside it, where the runs go: exists and is not a directory")
	// The scenario's own directory, and the matrices' directory, as files.
	scenarioFile := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(scenarioFile, "locksim"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(scenarioFile, "locksim", "adhoc"), []byte("x\n"), 0o644))
	testBadOut(t, "scenario dir is a file/run", []string{"run", "--algos", "setpx", "--backend", "redis", "--duration", "30s"}, scenarioFile,
		"locksim/adhoc inside it, where the runs of adhoc go: exists and is not a directory")
	matrixFile := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(matrixFile, "matrix"), []byte("x\n"), 0o644))
	testBadOut(t, "matrix dir is a file/matrix", []string{"matrix", "--scenarios", "control-contention", "--algos", "setpx"}, matrixFile,
		"matrix inside it, where the matrices go: exists and is not a directory")
	// A symlink to nowhere: MkdirAll would fail on it only after the run.
	dangling := filepath.Join(t.TempDir(), "results")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), dangling))
	for _, cmd := range [][]string{
		{"run", "--algos", "setpx", "--backend", "redis", "--duration", "30s"},
		{"matrix", "--scenarios", "control-contention", "--algos", "setpx"},
	} {
		testBadOut(t, "dangling symlink/"+cmd[0], cmd, dangling, "is a symlink to "+filepath.Join(dir, "nowhere")+", which does not exist")
	}
}

// testBadOut runs cmd with --out out and expects it refused as bad input
// with want in its one line, before any node started.
func testBadOut(t *testing.T, name string, cmd []string, out, want string) {
	t.Run(name, func(t *testing.T) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp) // where a redis node's data dir would go
		_, stderr, code := execute(t, append(cmd, "--out", out)...)
		assert.Equal(t, exitUsage, code, stderr)
		msg := strings.TrimSpace(stderr)
		assert.NotContains(t, msg, "\n", "one line")
		assert.Contains(t, msg, "--out")
		assert.Contains(t, msg, want)
		left, err := os.ReadDir(tmp)
		require.NoError(t, err)
		assert.Empty(t, left, "no node was started")
	})
}

// --algos is the one name of the designs flag on every command: a near
// miss such as --algo is refused in one line that names what was typed
// and the flag meant.
func TestAlgosIsTheOneName(t *testing.T) {
	out := t.TempDir()
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--clients", "1", "--duration", "100ms", "--out", out)
	assert.Equal(t, exitOK, code, stderr)
	for _, cmd := range []string{"run", "matrix", "explore", "review"} {
		_, stderr, code = execute(t, cmd, "--algo", "setpx", "--out", out)
		assert.Equal(t, exitUsage, code, cmd)
		assert.Equal(t, "unknown flag: --algo (did you mean --algos?)", strings.TrimSpace(stderr), cmd)
	}
}

// TestRefusalNamesTheDesignGiven: a file covering several designs is
// refused for what the design given cannot take, never for another one
// it covers: with two nodes down for good redlock can never reach a
// majority, setpx (on node 0, which restarts) can run.
func TestRefusalNamesTheDesignGiven(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(f, []byte("name: twodown\nalgorithm: [redlock, setpx]\nnodes: 3\nduration: 300ms\nfaults:\n"+
		"  - {kind: kill-node, node: 0, at: 10ms, restart_after: 20ms}\n  - {kind: kill-node, node: 1, at: 10ms}\n  - {kind: kill-node, node: 2, at: 10ms}\n"), 0o644))
	_, stderr, code := execute(t, "run", f, "--algos", "setpx", "--out", filepath.Join(dir, "results"))
	assert.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "redlock")

	_, stderr, code = execute(t, "run", f, "--algos", "redlock", "--out", filepath.Join(dir, "results"))
	assert.Equal(t, exitUsage, code, stderr)
	msg := strings.TrimSpace(stderr)
	assert.NotContains(t, msg, "\n", "one line")
	assert.Contains(t, msg, "redlock can never reach a majority")
}
