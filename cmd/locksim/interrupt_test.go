package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// hangGuard bounds every wait on the locksim process in these tests (see
// simtest.HangGuard): only a process that never does what it was told
// outlasts it.
const hangGuard = simtest.HangGuard

// TestInterruptStopsEverything: SIGINT or SIGTERM during a 60 s run on 5
// redis-server nodes behind toxiproxy proxies stops it: the run ends before
// its duration, exit 3, no redis-server left, none of its ports listening,
// no temp dir, and the partial run is marked incomplete, never presented as
// a verdict. How fast is not the property (a loaded machine is slow); that
// the signal, not the run's end, stopped it is.
func TestInterruptStopsEverything(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs redis-server processes")
	}
	bin := buildLocksim(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { interruptRun(t, bin, sig) })
	}
}

// TestSecondInterruptExitsAtOnce: a second SIGINT while the first one's
// orderly stop is under way kills every redis-server and exits 3 at once,
// without a report. The second signal is sent as soon as the first is
// acknowledged; a stop that happens to finish first is tried again.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs redis-server processes")
	}
	bin := buildLocksim(t)
	for attempt := 1; attempt <= 3; attempt++ {
		if secondInterrupt(t, bin) {
			return
		}
		t.Logf("attempt %d: the orderly stop finished before the second SIGINT arrived", attempt)
	}
	t.Fatal("the second SIGINT never arrived during the orderly stop")
}

// secondInterrupt reports false when the first stop ended the run before
// the second signal could matter.
func secondInterrupt(t *testing.T, bin string) bool {
	tmp := t.TempDir()
	out := t.TempDir()
	// Many clients make the orderly stop (check, timeline, report) take a
	// while; the second signal lands in it.
	cmd := exec.Command(bin, "run", "--algos", "redlock", "--backend", "redis", "--nodes", "5", "--clients", "20",
		"--duration", "60s", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	lines := startWithStderr(t, cmd)
	servers := waitForServers(t, cmd.Process.Pid, 5)
	time.Sleep(time.Second) // a history worth checking
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	var all []string
	for l := range lines {
		all = append(all, l)
		if strings.Contains(l, "SIGINT: interrupted") {
			_ = cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	done := make(chan error, 1)
	go func() {
		for l := range lines {
			all = append(all, l)
		}
		done <- cmd.Wait()
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		_ = cmd.Process.Kill()
		t.Fatalf("hung: locksim still running %v after the second SIGINT", hangGuard)
	}
	text := strings.Join(all, "\n")
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit with an error, got %v: %s", err, text)
	if !strings.Contains(text, "second SIGINT") {
		return false
	}
	assert.Equal(t, exitHarness, ee.ExitCode(), text)
	for pid := range servers {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "redis-server %d outlived the second SIGINT", pid)
	}
	// No report: the orderly stop was cut short, and what it had begun
	// writing does not look like a run directory.
	runs := runDirs(out, "adhoc", "redlock")
	for _, r := range runs {
		assert.Contains(t, filepath.Base(r), ".tmp-", "a run directory was written: %s", r)
	}
	return true
}

// buildLocksim builds the command for tests that signal or kill it.
func buildLocksim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "locksim")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestKilledRunsDirIsReclaimed: kill -9 of a redis-backed run takes its
// redis-servers with it (Pdeathsig) but leaves their node directory, named
// after its pid; the next run removes it and says so in one line.
func TestKilledRunsDirIsReclaimed(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs redis-server processes")
	}
	bin := buildLocksim(t)
	tmp := t.TempDir()
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--algos", "redlock", "--backend", "redis", "--nodes", "3", "--duration", "60s", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	servers := waitForServers(t, cmd.Process.Pid, 3)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("locksim-redis-pid%d-*", cmd.Process.Pid)))
	require.Len(t, left, 1, "kill -9 leaves the node directory, named after its owner")
	for pid := range servers {
		// Pdeathsig's SIGKILL is asynchronous: wait for it, up to a hang guard.
		deadline := time.Now().Add(hangGuard)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "redis-server %d outlived its harness (still there %v after the kill -9)", pid, hangGuard)
	}

	next := exec.Command(bin, "run", "--algos", "setpx", "--duration", "100ms", "--out", out)
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := next.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Contains(t, string(b), fmt.Sprintf("removed 1 node directory that ended locksim runs left in %s (pid %d)\n", tmp, cmd.Process.Pid))
	assert.NoDirExists(t, left[0])
}

func interruptRun(t *testing.T, bin string, sig syscall.Signal) {
	interruptRunOn(t, bin, sig, sim.ServerRedis)
}

// interruptRunOn is interruptRun with the redis backend on server.
func interruptRunOn(t *testing.T, bin string, sig syscall.Signal, server sim.Server) {
	interruptScenario(t, bin, sig, "redlock", 5, 300*time.Millisecond, `backend: redis
server: `+string(server)+`
nodes: 5
`)
}

// TestInterruptStopsCluster is TestInterruptStopsEverything on the
// redis-cluster backend: its six server processes, directory and ports
// are gone after SIGINT or SIGTERM.
func TestInterruptStopsCluster(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs redis-server processes")
	}
	bin := buildLocksim(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			// the cluster forms after its servers are up: a second or two
			interruptScenario(t, bin, sig, "setpx", 6, 4*time.Second, "backend: redis-cluster\nnodes: 3\nreplicas: 1\n")
		})
	}
}

// interruptScenario runs a 60 s scenario of algo on world (its backend
// lines), whose backend starts n servers, and interrupts it with sig
// settle after they are up (once the run's clients go).
func interruptScenario(t *testing.T, bin string, sig syscall.Signal, algo string, n int, settle time.Duration, world string) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp") // the cluster's temp dirs land here
	require.NoError(t, os.Mkdir(tmp, 0o755))
	scenario := filepath.Join(dir, "long.yaml")
	require.NoError(t, os.WriteFile(scenario, []byte(`name: long-run
algorithm: `+algo+`
`+world+`clients: 3
duration: 60s
faults:
  - {kind: delay, latency: 2ms, at: 10ms}
`), 0o644))
	out := filepath.Join(dir, "results")
	cmd := exec.Command(bin, "run", scenario, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	lines := startWithStderr(t, cmd)

	servers := waitForServers(t, cmd.Process.Pid, n)
	time.Sleep(settle) // let clients and the delay fault get going
	sent := time.Now()
	require.NoError(t, cmd.Process.Signal(sig))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		_ = cmd.Process.Kill()
		t.Fatalf("hung: locksim still running %v after %v", hangGuard, sig)
	}
	// For the record only: a loaded machine makes this long, and that is no failure.
	t.Logf("%v: locksim stopped %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit with an error, got %v", err)
	assert.Equal(t, exitHarness, ee.ExitCode())
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	assert.Contains(t, strings.Join(all, "\n"), "interrupted")

	for pid, port := range servers {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "redis-server %d still exists", pid)
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			t.Errorf("port %d still listening", port)
		}
	}
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "temp dirs left behind")

	// The report is written for the record, but marked incomplete, and the
	// scenario's latest link never points at it.
	runs := runDirs(out, "long-run", algo)
	require.Len(t, runs, 1, "the partial run's report is written")
	assert.Contains(t, strings.Join(all, "\n"), "partial run kept in "+runs[0])
	for _, r := range runs {
		v, err := report.ReadVerdict(filepath.Join(r, report.FileVerdict))
		require.NoError(t, err, "a kept run dir is complete")
		assert.True(t, v.Incomplete, "partial run is marked incomplete")
		assert.False(t, v.AsExpected)
		// The signal cut the run short: it did not play out its duration.
		assert.Equal(t, time.Minute, v.Config.Duration.D())
		assert.Less(t, v.WallMS, float64(v.Config.Duration.D().Milliseconds()), "the run lasted its whole duration: the signal did not stop it")
	}
	assert.NoFileExists(t, filepath.Join(out, "locksim", "long-run", report.LatestLink))
	assert.NoFileExists(t, filepath.Join(out, "locksim", "long-run", report.LatestFor(algo)))
}

// waitForServers returns the server children of pid (pid -> port),
// redis-server or valkey-server,
// once n are listening; it fails as hung after hangGuard.
func waitForServers(t *testing.T, parent, n int) map[int]int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		found := map[int]int{}
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			port, ok := redisChild(pid, parent)
			if ok {
				found[pid] = port
			}
		}
		if len(found) >= n {
			for _, port := range found {
				c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
				if err != nil {
					goto again
				}
				_ = c.Close()
			}
			return found
		}
	again:
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("hung: fewer than %d redis-server children of %d listening after %v", n, parent, hangGuard)
	return nil
}

// redisChild reports whether pid is a server (redis-server, valkey-server)
// whose parent is parent, and the port from its command line.
func redisChild(pid, parent int) (int, bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil || !strings.Contains(string(status), fmt.Sprintf("PPid:\t%d\n", parent)) {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0, false
	}
	// The server rewrites its title to "/usr/bin/redis-server 127.0.0.1:PORT"
	// (valkey-server to its own name).
	title := strings.Fields(strings.ReplaceAll(string(cmdline), "\x00", " "))
	if len(title) < 2 || !slices.ContainsFunc(node.Servers(), func(s sim.Server) bool { return strings.Contains(title[0], s.Binary()) }) {
		return 0, false
	}
	_, port, err := net.SplitHostPort(title[1])
	if err != nil {
		return 0, false
	}
	p, err := strconv.Atoi(port)
	return p, err == nil
}

// startWithStderr starts cmd and streams its stderr, line by line; a failed
// test leaves nothing running.
func startWithStderr(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// TestInterruptedMatrixKeepsFinishedPairs: SIGINT or SIGTERM to a matrix
// whose first pair has finished and whose second is running writes the
// matrix with the finished pair, marked incomplete, the running one cut
// short (not a verdict), and exits 3; latest does not move.
func TestInterruptedMatrixKeepsFinishedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLocksim(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			short := filepath.Join(dir, "short.yaml")
			long := filepath.Join(dir, "long.yaml")
			require.NoError(t, os.WriteFile(short, []byte("name: short\nalgorithm: setpx\nduration: 200ms\n"), 0o644))
			require.NoError(t, os.WriteFile(long, []byte("name: long\nalgorithm: setpx\nduration: 60s\n"), 0o644))
			out := filepath.Join(dir, "results")
			cmd := exec.Command(bin, "matrix", "--scenarios", short+","+long, "--algos", "setpx", "--real-time", "--parallel", "1", "--json", "--out", out)
			var stdout strings.Builder
			cmd.Stdout = &stdout
			lines := startWithStderr(t, cmd)
			var all []string
			for l := range lines {
				all = append(all, l)
				if strings.Contains(l, "short setpx") {
					break
				}
			}
			time.Sleep(300 * time.Millisecond) // the long pair is under way
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() {
				for l := range lines {
					all = append(all, l)
				}
				done <- cmd.Wait()
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(hangGuard):
				_ = cmd.Process.Kill()
				t.Fatalf("hung: matrix still running %v after %v", hangGuard, sig)
			}
			text := strings.Join(all, "\n")
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit with an error, got %v: %s", err, text)
			assert.Equal(t, exitHarness, ee.ExitCode(), text)
			assert.Contains(t, text, "marked incomplete")

			dirs, _ := filepath.Glob(filepath.Join(out, "matrix", "2*"))
			require.Len(t, dirs, 1, "the interrupted matrix is written: %s", text)
			m, rerr := matrix.Read(dirs[0])
			require.NoError(t, rerr)
			assert.True(t, m.Incomplete)
			assert.False(t, m.OK())
			s := m.Cell("short", "setpx")
			require.NotNil(t, s)
			assert.Equal(t, matrix.CellRan, s.Status)
			require.Len(t, s.Runs, 1)
			assert.DirExists(t, filepath.Join(dirs[0], s.Runs[0].Dir))
			l := m.Cell("long", "setpx")
			require.NotNil(t, l)
			assert.Equal(t, matrix.CellInterrupted, l.Status)
			assert.False(t, l.AsExpected)
			md := readFile(t, filepath.Join(dirs[0], matrix.FileMD))
			assert.Contains(t, md, "INCOMPLETE")
			assert.NoFileExists(t, filepath.Join(out, "matrix", "latest"), "an incomplete matrix does not become latest")
			assert.Contains(t, stdout.String(), `"incomplete": true`)
		})
	}
}

// TestKilledClusterRunLeavesNoServer: kill -9 of locksim during a
// redis-cluster run takes its six servers with it (Pdeathsig), and the
// next run removes the directory it left.
func TestKilledClusterRunLeavesNoServer(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("builds the binary and runs redis-server processes")
	}
	bin := buildLocksim(t)
	tmp := t.TempDir()
	out := t.TempDir()
	scenario := filepath.Join(t.TempDir(), "long.yaml")
	require.NoError(t, os.WriteFile(scenario, []byte("name: long-run\nalgorithm: setpx\nbackend: redis-cluster\nnodes: 3\nreplicas: 1\nduration: 60s\n"), 0o644))
	cmd := exec.Command(bin, "run", scenario, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	servers := waitForServers(t, cmd.Process.Pid, 6)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("locksim-redis-pid%d-*", cmd.Process.Pid)))
	require.Len(t, left, 1, "kill -9 leaves the cluster's directory, named after its owner")
	for pid := range servers {
		deadline := time.Now().Add(hangGuard)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "server %d outlived its harness (still there %v after the kill -9)", pid, hangGuard)
	}
	next := exec.Command(bin, "run", "--algos", "setpx", "--duration", "100ms", "--out", out)
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := next.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.NoDirExists(t, left[0])
}
