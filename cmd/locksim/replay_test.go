package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run --determinism N reruns each design in virtual time and compares the
// histories: exit 0 and one line per design when they are identical; a
// count below 2 and a run that cannot go in virtual time are bad input.
func TestRunDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLocksim(t)
	out := t.TempDir()
	stdout, err := exec.Command(bin, "run", "redlock-node-clock-jump", "--determinism", "3", "--out", out).Output()
	require.NoError(t, err, "exit 0: every rerun identical")
	assert.Contains(t, string(stdout), "redlock        identical in 3 runs")
	assert.Contains(t, string(stdout), "redsync        identical in 3 runs")
	assert.Empty(t, runDirs(out, "redlock-node-clock-jump", "redlock"), "--determinism writes no report")

	for _, args := range [][]string{
		{"run", "crash-holder", "--algos", "setpx", "--determinism", "1"},
		{"run", "crash-holder", "--algos", "setpx", "--determinism", "2", "--real-time"},
	} {
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", args)
		assert.Equal(t, exitUsage, ee.ExitCode(), "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "--determinism", "%v: the message names the flag", args)
	}
}
