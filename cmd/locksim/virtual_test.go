package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/report"
)

// The binary hosts virtual-time bubbles itself (vtime.Main): a run on
// miniredis goes in virtual time by default, --real-time keeps the wall
// clock, and both give the scenario's verdicts.
func TestBinaryRunsInVirtualTimeByDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLocksim(t)
	for _, mode := range []struct {
		name    string
		args    []string
		virtual bool
	}{
		{"virtual", nil, true},
		{"real-time", []string{"--real-time"}, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", "gc-pause-after-check", "--algos", "setpx,fenced", "--out", out, "--json"}, mode.args...)
			stdout, err := exec.Command(bin, args...).Output()
			require.NoError(t, err, "exit 0: every verdict as expected")
			assert.True(t, strings.HasPrefix(strings.TrimSpace(string(stdout)), "{") || strings.HasPrefix(strings.TrimSpace(string(stdout)), "["),
				"stdout is the JSON alone (testing.Main prints nothing of its own): %q", stdout)
			runs := append(runDirs(out, "gc-pause-after-check", "setpx"), runDirs(out, "gc-pause-after-check", "fenced")...)
			require.Len(t, runs, 2)
			for _, r := range runs {
				summary, err := os.ReadFile(filepath.Join(r, report.FileSummary))
				require.NoError(t, err)
				assert.Equal(t, mode.virtual, strings.Contains(string(summary), "virtual time"), "%s says whether it ran in virtual time", r)
			}
		})
	}
}

// TestInterruptStopsAVirtualTimeRun: a run of a simulated hour, which costs
// minutes of CPU even in virtual time, stops at SIGINT: the bubble sees the
// cancellation, the run is kept marked incomplete, the exit code is 3.
func TestInterruptStopsAVirtualTimeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLocksim(t)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--algos", "setpx", "--clients", "2", "--duration", "1h", "--out", out)
	lines := startWithStderr(t, cmd)
	time.Sleep(time.Second) // let it get going; how far it got does not matter
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		_ = cmd.Process.Kill()
		t.Fatalf("hung: locksim still running %v after SIGINT", hangGuard)
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit with an error, got %v", err)
	assert.Equal(t, exitHarness, ee.ExitCode())
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	assert.Contains(t, strings.Join(all, "\n"), "interrupted")
	runs := runDirs(out, "adhoc", "setpx")
	require.Len(t, runs, 1, "the partial run is kept")
	v, err := report.ReadVerdict(filepath.Join(runs[0], report.FileVerdict))
	require.NoError(t, err)
	assert.True(t, v.Incomplete, "marked incomplete")
}
