package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hidden --cpuprofile FILE writes a profile pprof can read, also when
// the command fails; a FILE that cannot be made is bad input (exit 2).
func TestCPUProfileFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLocksim(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	cmd := exec.Command(bin, "--cpuprofile", prof, "run", "gc-pause-after-check", "--algos", "setpx", "--out", dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	fi, err := os.Stat(prof)
	require.NoError(t, err)
	assert.Positive(t, fi.Size(), "a profile was written")

	bad := filepath.Join(dir, "cpu2.prof")
	err = exec.Command(bin, "--cpuprofile", bad, "run", "no-such-scenario").Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitUsage, ee.ExitCode())
	assert.FileExists(t, bad, "a failing command still leaves its profile")

	err = exec.Command(bin, "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "p"), "list").Run()
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitUsage, ee.ExitCode())
}
