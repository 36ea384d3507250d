package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Against a reference, the violations it shares are known and do not fail
// the exploration; --strict fails on them; an unknown reference is bad
// input naming the flag.
func TestExploreAgainst(t *testing.T) {
	dir := t.TempDir()
	args := []string{"explore", "--algos", "setpx", "--against", "setpx", "--kinds", "pause-client", "--runs", "60",
		"--duration", "1s", "--hold", "100ms", "--confirm", "none"}
	stdout, stderr, code := executeVirtual(t, append(args, "--out-dir", filepath.Join(dir, "a"))...)
	require.Equal(t, exitOK, code, "setpx's overlaps under pauses are setpx's too: %s", stderr)
	assert.Contains(t, stdout, "against setpx: 0 distinct violations only setpx has")
	assert.Contains(t, stdout, "+1 not shrunk: the reference fails them too")
	assert.FileExists(t, filepath.Join(dir, "a", "setpx", "summary.md"))

	_, stderr, code = executeVirtual(t, append(args, "--strict", "--out-dir", filepath.Join(dir, "b"))...)
	assert.Equal(t, exitMismatch, code, stderr)

	_, stderr, code = execute(t, "explore", "--algos", "setpx", "--against", "paxos")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--against")
	assert.Contains(t, stderr, `"paxos"`)
}
