package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim/simtest"
)

// TestInterruptEndsAdapterChildren: SIGINT during a redis-py run on
// redis-server stops it with exit 3, and none of the adapter children (one
// per client, and the probe's) nor the redis-server outlives it.
func TestInterruptEndsAdapterChildren(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs adapter children and redis-server")
	}
	info, err := lock.Lookup("redis-py")
	require.NoError(t, err)
	if m := info.Missing(); m != "" {
		if os.Getenv(simtest.RequireEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", m, simtest.RequireEnv)
		}
		t.Skipf("skipping: %s", m)
	}
	bin := buildLocksim(t)
	cmd := exec.Command(bin, "run", "--algos", "redis-py", "--backend", "redis", "--nodes", "1", "--clients", "3",
		"--duration", "60s", "--out", t.TempDir())
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	lines := startWithStderr(t, cmd)
	go func() {
		for range lines { // drain
		}
	}()
	servers := waitForServers(t, cmd.Process.Pid, 1)
	kids := waitForAdapters(t, cmd.Process.Pid, 3)
	time.Sleep(time.Second) // some cycles
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		_ = cmd.Process.Kill()
		t.Fatalf("hung: locksim still running %v after SIGINT", hangGuard)
	}
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "exit with an error, got %v", err)
	assert.Equal(t, exitHarness, ee.ExitCode())
	for pid := range kids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "adapter child %d outlived the SIGINT", pid)
	}
	for pid := range servers {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "redis-server %d outlived the SIGINT", pid)
	}
	// nor the children's libfaketime spec files and shared memory
	left, _ := filepath.Glob(filepath.Join(tmp, "locksim-faketime-*"))
	assert.Empty(t, left, "libfaketime spec directories left after the SIGINT")
	for pid := range kids {
		assert.NoFileExists(t, fmt.Sprintf("/dev/shm/faketime_shm_%d", pid), "libfaketime's shared memory of child %d", pid)
	}
}

// waitForAdapters waits for n redis-py adapter children of parent.
func waitForAdapters(t *testing.T, parent, n int) map[int]bool {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		found := map[int]bool{}
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil || !strings.Contains(string(status), fmt.Sprintf("PPid:\t%d\n", parent)) {
				continue
			}
			if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmdline), "adapter.py") {
				found[pid] = true
			}
		}
		if len(found) >= n {
			return found
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("hung: fewer than %d adapter children of %d after %v", n, parent, hangGuard)
	return nil
}

// TestKilledProcessRunsShmIsReclaimed: kill -9 of a redis-py run takes its
// adapter children with it (Pdeathsig's SIGKILL), which leaves
// libfaketime's shared memory and semaphore of each child in /dev/shm; the
// next process-design run removes those of the dead children.
func TestKilledProcessRunsShmIsReclaimed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs adapter children")
	}
	info, err := lock.Lookup("redis-py")
	require.NoError(t, err)
	if m := info.Missing() + info.ClockUnreached(); m != "" {
		if os.Getenv(simtest.RequireEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", m, simtest.RequireEnv)
		}
		t.Skipf("skipping: %s", m)
	}
	bin := buildLocksim(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "run", "--algos", "redis-py", "--real-time", "--clients", "3", "--duration", "60s", "--out", t.TempDir())
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	kids := waitForAdapters(t, cmd.Process.Pid, 3)
	shm := func(pid int) []string {
		return []string{fmt.Sprintf("/dev/shm/faketime_shm_%d", pid), fmt.Sprintf("/dev/shm/sem.faketime_sem_%d", pid)}
	}
	for pid := range kids { // libfaketime makes them as the child starts
		for _, f := range shm(pid) {
			deadline := time.Now().Add(hangGuard)
			for _, err := os.Stat(f); err != nil && time.Now().Before(deadline); _, err = os.Stat(f) {
				time.Sleep(20 * time.Millisecond)
			}
			require.FileExists(t, f)
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	for pid := range kids {
		deadline := time.Now().Add(hangGuard)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "adapter child %d outlived the kill -9", pid)
		for _, f := range shm(pid) {
			require.FileExists(t, f, "the killed child left no shared memory: nothing to reclaim")
		}
	}
	next := exec.Command(bin, "run", "--algos", "redis-py", "--real-time", "--clients", "1", "--duration", "100ms", "--out", t.TempDir())
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := next.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitHarness {
		t.Fatalf("the next run failed: %s", b)
	}
	for pid := range kids {
		for _, f := range shm(pid) {
			assert.NoFileExists(t, f, "left by the killed run's child %d", pid)
		}
	}
}
