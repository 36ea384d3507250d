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

	_, stderr, code := execute(t, "run", "--algos", "setpx", "--duration", "100ms", "--out", t.TempDir())
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "removed 1 node directory that ended locksim runs left in "+tmp+" (pid "+strconv.Itoa(ended.Process.Pid)+")\n")
	assert.NoDirExists(t, dead)
	assert.DirExists(t, live)
}

// TestPartialDirsAreReclaimed: the unfinished result directories a killed
// run left under --out (a run's, a matrix's) are removed by the next run
// or matrix when their owner is gone, in one line; a running process's
// stay, and so do published results.
func TestPartialDirsAreReclaimed(t *testing.T) {
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	for _, cmd := range [][]string{
		{"run", "--algos", "setpx", "--duration", "100ms"},
		{"matrix", "--scenarios", "control-contention", "--algos", "setpx"},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			out := t.TempDir()
			deadRun := filepath.Join(out, "locksim", "s", ".20260101T000000Z-setpx-s1.partial-pid"+dead+"-123")
			deadMatrix := filepath.Join(out, "matrix", ".20260101T000000Z.partial-pid"+dead+"-456")
			liveRun := filepath.Join(out, "locksim", "s", ".20260101T000001Z-setpx-s1.partial-pid"+live+"-789")
			kept := filepath.Join(out, "locksim", "s", "20260101T000000Z-setpx-s1")
			for _, d := range []string{deadRun, deadMatrix, liveRun, kept} {
				require.NoError(t, os.MkdirAll(filepath.Join(d, "x"), 0o755))
			}
			_, stderr, code := execute(t, append(cmd, "--out", out)...)
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stderr, "removed 2 unfinished result directories that ended locksim runs left in "+out+" (pid "+dead+", "+dead+")\n")
			assert.NoDirExists(t, deadRun)
			assert.NoDirExists(t, deadMatrix)
			assert.DirExists(t, liveRun)
			assert.DirExists(t, kept)
		})
	}
}

// TestTempDirThatIsNotThereIsNamed: with TMPDIR pointing nowhere, the
// warning about left-over directories names TMPDIR and the path.
func TestTempDirThatIsNotThereIsNamed(t *testing.T) {
	nowhere := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv("TMPDIR", nowhere)
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--duration", "100ms", "--out", t.TempDir())
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "warning: left-over node directories not looked for in "+nowhere+" (TMPDIR")
}
