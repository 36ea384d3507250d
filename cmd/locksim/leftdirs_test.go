package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeftDirsAreListedAndReclaimed: doctor lists the node directories in
// the temp dir; the next run removes those whose process is gone, in one
// line, and leaves a running process's alone.
func TestLeftDirsAreListedAndReclaimed(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	dead := filepath.Join(tmp, "locksim-redis-pid"+strconv.Itoa(ended.Process.Pid)+"-1")
	live := filepath.Join(tmp, "locksim-redis-pid"+strconv.Itoa(os.Getpid())+"-2")
	for _, d := range []string{dead, live} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, "node0"), 0o755))
	}

	stdout, _, _ := execute(t, "doctor")
	assert.Contains(t, stdout, dead+" (pid "+strconv.Itoa(ended.Process.Pid)+" is gone")
	assert.Contains(t, stdout, live+" (pid "+strconv.Itoa(os.Getpid())+" is running)")

	_, stderr, code := execute(t, "run", "--algo", "setpx", "--duration", "100ms", "--out", t.TempDir())
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "removed 1 node directory that ended locksim runs left in "+tmp+" (pid "+strconv.Itoa(ended.Process.Pid)+")\n")
	assert.NoDirExists(t, dead)
	assert.DirExists(t, live)
}
