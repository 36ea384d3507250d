package node

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func TestReclaimLeftDirs(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, clusterDirPID+strconv.Itoa(deadPID(t))+"-123")
	mine := filepath.Join(dir, clusterDirPattern()+"456")
	older := filepath.Join(dir, clusterDirPrefix+"789")
	other := filepath.Join(dir, "something-else")
	for _, d := range []string{dead, mine, older, other} {
		require.NoError(t, os.MkdirAll(filepath.Join(d, "node0"), 0o755))
	}

	left, err := LeftDirs(dir)
	require.NoError(t, err)
	byPath := map[string]LeftDir{}
	for _, d := range left {
		byPath[d.Path] = d
	}
	assert.Len(t, left, 3, "only cluster dirs")
	assert.True(t, byPath[dead].Gone)
	assert.False(t, byPath[mine].Gone, "this process runs")
	assert.Equal(t, os.Getpid(), byPath[mine].PID)
	assert.Equal(t, 0, byPath[older].PID, "an older name says no owner")
	assert.False(t, byPath[older].Gone)

	removed, err := ReclaimLeftDirs(dir)
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, dead, removed[0].Path)
	assert.NoDirExists(t, dead)
	for _, d := range []string{mine, older, other} {
		assert.DirExists(t, d)
	}
}
