package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// --server takes redis or valkey, and a server other than redis only
// where the redis backend starts servers: every other value or
// combination is one line naming --server, exit 2, nothing written.
func TestServerFlagBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"run: unknown server", []string{"run", "--algos", "setpx", "--server", "mongo"}, []string{`--server "mongo"`, "redis or valkey"}},
		{"run: empty server", []string{"run", "--algos", "setpx", "--server", ""}, []string{`--server ""`, "redis or valkey"}},
		{"run: valkey on miniredis", []string{"run", "--algos", "setpx", "--backend", "miniredis", "--server", "valkey"}, []string{"--server valkey", "--backend redis", "not --backend miniredis"}},
		{"run: valkey on --addrs", []string{"run", "--algos", "setpx", "--addrs", "127.0.0.1:1", "--server", "valkey"}, []string{"--server valkey", "--addrs"}},
		{"run: valkey on a miniredis scenario", []string{"run", "gc-pause-after-check", "--algos", "setpx", "--server", "valkey"}, []string{"--server valkey", "runs on backend miniredis", "--backend redis"}},
		{"matrix: unknown server", []string{"matrix", "--server", "Valkey"}, []string{`--server "Valkey"`, "redis or valkey"}},
		{"matrix: valkey on miniredis", []string{"matrix", "--backend", "miniredis", "--server", "valkey"}, []string{"--server valkey", "not --backend miniredis"}},
		{"review: unknown server", []string{"review", "--server", "keydb"}, []string{`--server "keydb"`, "redis or valkey"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			_, stderr, code := execute(t, append(tc.args, "--out", out)...)
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

// A server file's server: field is checked like --server, naming its line.
func TestServerFieldBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		wants      []string
	}{
		{"unknown", "name: bad\nalgorithm: setpx\nbackend: redis\nserver: mongo\n", []string{"s.yaml:4", "server", "mongo", "redis or valkey"}},
		{"valkey on miniredis", "name: bad\nalgorithm: setpx\nserver: valkey\n", []string{"s.yaml:3", "server", "needs backend: redis"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "s.yaml")
			require.NoError(t, os.WriteFile(f, []byte(tc.yaml), 0o644))
			_, stderr, code := execute(t, "run", f, "--out", filepath.Join(dir, "results"))
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(stderr)
			assert.NotContains(t, msg, "\n", "one line")
			for _, w := range tc.wants {
				assert.Contains(t, msg, w)
			}
		})
	}
}

// Without valkey-server on PATH, --server valkey fails as a missing
// redis-server does: run says so as bad input (exit 2), matrix as its
// environment failing (exit 3), both in one line naming valkey-server
// and how to install it.
func TestMissingValkeyServer(t *testing.T) {
	path := t.TempDir() // redis-server, but no valkey
	if p, err := node.LookupRedisServer(""); err == nil {
		require.NoError(t, os.Symlink(p, filepath.Join(path, "redis-server")))
	}
	t.Setenv("PATH", path)
	out := filepath.Join(t.TempDir(), "results")
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--backend", "redis", "--server", "valkey", "--duration", "100ms", "--out", out)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, lastLine(stderr), "valkey-server not found in PATH")
	assert.Contains(t, lastLine(stderr), "valkey-sentinel")
	assert.NoDirExists(t, out)

	_, stderr, code = execute(t, "matrix", "--backend", "redis", "--server", "valkey", "--scenarios", "control-contention", "--out", out)
	assert.Equal(t, exitHarness, code, stderr)
	assert.Contains(t, lastLine(stderr), "valkey-server not found in PATH")
	assert.NoDirExists(t, out)

	_, stderr, code = execute(t, "review", "--server", "valkey", "--out", out)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, lastLine(stderr), "--server valkey: valkey-server not found in PATH")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestInterruptStopsValkey is TestInterruptStopsEverything on Valkey:
// SIGINT during a run on 5 valkey-server nodes leaves no valkey-server,
// port or temp dir behind.
func TestInterruptStopsValkey(t *testing.T) {
	simtest.RequireValkey(t)
	if testing.Short() {
		t.Skip("builds the binary and runs valkey-server processes")
	}
	interruptRunOn(t, buildLocksim(t), syscall.SIGINT, sim.ServerValkey)
}
