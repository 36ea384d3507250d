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

// TestRetriedOperationsThatAlwaysFail: every retrying loop ends when what
// it retries fails for good. A redis-server that dies at once, one whose
// port is always taken, and one that never answers each end the run with
// one line and exit 3 within the bound, leaving no temp dir behind. (The
// run directory's name search is covered by the --out cases of
// TestBadOutPathTable and by report's TestRunDirFailsOnAPermanentError.)
func TestRetriedOperationsThatAlwaysFail(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wants        []string
	}{
		{"dies at once", "echo 'FATAL CONFIG FILE ERROR (Redis 7.0.15)'\nexit 1\n",
			[]string{"exited before answering PING", "FATAL CONFIG FILE ERROR"}},
		{"port always taken", "echo \"Warning: Could not create server TCP listening socket 127.0.0.1:$2: bind: Address already in use\"\nexit 1\n",
			[]string{"5 ports in a row were taken", "Address already in use"}},
		{"never answers", "exec sleep 60\n", []string{"no PONG within 5s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			fake := filepath.Join(bin, "redis-server")
			require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+tc.script), 0o755))
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			start := time.Now()
			_, stderr, code := execute(t, "run", "--algo", "setpx", "--backend", "redis", "--duration", "100ms", "--out", t.TempDir())
			assert.Less(t, time.Since(start), 30*time.Second)
			assert.Equal(t, exitHarness, code, stderr)
			last := strings.TrimSpace(stderr)
			last = last[strings.LastIndexByte(last, '\n')+1:]
			for _, w := range tc.wants {
				assert.Contains(t, last, w, "in the last line of: %s", stderr)
			}
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "the node directory is removed")
		})
	}
}

// TestAcquireThatAlwaysFailsEndsWithTheRun: with every client cut off from
// the only node for an hour once client 0 holds the lock (so that the run
// has a lease to judge; at a fixed time, a slow machine could cut the
// clients off before any acquire), the acquire loops still end with the run's
// duration; the partition heals, the probe gets the lock, and the run
// ends with its verdict.
func TestAcquireThatAlwaysFailsEndsWithTheRun(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`name: acquire-never-succeeds
algorithm: setpx
nodes: 1
clients: 3
duration: 500ms
faults:
  - {kind: partition, when: {client: 0, point: after-acquire}, for: 1h}
expect:
  "*": safe
`), 0o644))
	start := time.Now()
	stdout, stderr, code := execute(t, "run", f, "--out", dir)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "as expected")
}

// TestProbeThatNeverGetsTheLockEnds: a key left without TTL makes every
// attempt of the liveness probe fail; the probe gives up at its bound
// (TTL + slack), the run ends with its deadlock verdict, as expected.
func TestProbeThatNeverGetsTheLockEnds(t *testing.T) {
	start := time.Now()
	stdout, stderr, code := execute(t, "run", "crash-between-setnx-expire", "--algo", "setnx-expire", "--duration", "500ms", "--out", t.TempDir())
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "DEADLOCK")
	assert.Contains(t, stdout, "as expected")
}
