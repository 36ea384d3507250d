package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	_, stderr, code := execute(t, "run", "--algo", "setpx", "--backend", "redis", "--duration", "100ms", "--out", out)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "apt-get install redis-server")
	assert.NoDirExists(t, out)
}

func TestTTLShorterThanHoldWarns(t *testing.T) {
	out := t.TempDir()
	_, stderr, _ := execute(t, "run", "--algo", "setpx", "--ttl", "50ms", "--hold", "80ms", "--duration", "200ms", "--out", out)
	assert.Contains(t, stderr, "warning: hold 80ms is not shorter than ttl 50ms")
}

// TestTimeoutBoundsTheRun: --timeout stops a run that would go on, marks it
// incomplete and exits 3, however long the scenario's duration.
func TestTimeoutBoundsTheRun(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	_, stderr, code := execute(t, "run", "--algo", "setpx", "--duration", "30s", "--timeout", "400ms", "--out", out)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, exitHarness, code, stderr)
	assert.Contains(t, stderr, "timeout of 400ms")
	assert.Contains(t, stderr, "incomplete")
}
