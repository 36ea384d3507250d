package adapter_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/locksim/locksim/adapter"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, simtest.LeakOptions()...) }

// requireDesign skips a test whose design cannot run here, or fails it
// where CI promised everything (LOCKSIM_REQUIRE_REDIS=1).
func requireDesign(t *testing.T, name string) {
	t.Helper()
	info, err := lock.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if m := info.Missing(); m != "" {
		if os.Getenv(simtest.RequireEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", m, simtest.RequireEnv)
		}
		t.Skipf("skipping: %s (set %s=1 to fail instead)", m, simtest.RequireEnv)
	}
}

// wallClockTries: a real-time run a loaded machine kept from playing its
// scenario runs again, up to this many times; a played run never does.
const wallClockTries = 3

func executePlayed(t *testing.T, s *scenarios.Scenario, algo string, backend string) run.Outcome {
	t.Helper()
	on := *s
	if backend != "" {
		on.Backend = backend
	}
	for try := 1; ; try++ {
		o, err := run.Execute(context.Background(), &on, algo, run.Options{Out: t.TempDir(), RealTime: true, Pictures: func(o run.Outcome) report.Pictures {
			if o.AsExpected {
				return report.NoPictures
			}
			return report.AllPictures
		}})
		if err != nil {
			t.Fatalf("%s/%s: %v", s.Name, algo, err)
		}
		if len(o.Unplayed) == 0 || try == wallClockTries {
			return o
		}
		t.Logf("%s/%s: try %d did not play the scenario (%v); again", s.Name, algo, try, o.Unplayed)
	}
}

// TestProcessDesignsPlayTheCatalogue runs a pause and a crash scenario
// with each bundled adapter and checks the verdicts the scenarios expect
// of the designs they behave like; afterwards none of their children is
// left.
func TestProcessDesignsPlayTheCatalogue(t *testing.T) {
	for _, algo := range []string{"redis-py", "node-redlock"} {
		for _, name := range []string{"crash-holder", "gc-pause-after-check"} {
			t.Run(algo+"/"+name, func(t *testing.T) {
				requireDesign(t, algo)
				s, err := scenarios.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				o := executePlayed(t, s, algo, "")
				if !o.AsExpected {
					t.Errorf("%s/%s: verdict %s %v, expected %s; not played: %v (report %s)", name, algo, o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
				}
				if kids := children(t); len(kids) > 0 {
					t.Errorf("children left after the run: %v", kids)
				}
			})
		}
	}
}

// TestInternalPointRefused: a fault on a design's internal point skips a
// process design, saying why; so does a client clock fault where
// libfaketime would not reach the child: a process:CMD adapter, whose
// runtime locksim does not know, or a bundled one without libfaketime.
func TestInternalPointRefused(t *testing.T) {
	for _, tc := range []struct{ scenario, algo, lib, want string }{
		{"crash-between-setnx-expire", "redis-py", "", "internal point between-setnx-and-expire"},
		{"getset-client-clock-ahead", "process:/bin/sh adapter.sh", "", "would not reach process:/bin/sh adapter.sh's own clock"},
		{"getset-client-clock-ahead", "redis-py", "/no/such/libfaketime.so.1", "would not reach redis-py's own clock: libfaketime"},
	} {
		if tc.lib != "" {
			t.Setenv("LOCKSIM_LIBFAKETIME", tc.lib)
		}
		s, err := scenarios.Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := s.Expect(tc.algo)
		if !ok || e.Verdict != vocab.Skip || !strings.Contains(e.Reason, tc.want) {
			t.Errorf("%s: %s expected %v %q, want skip naming %q", tc.scenario, tc.algo, e.Verdict, e.Reason, tc.want)
		}
	}
}

// TestLikeCoversScenarios: a scenario written for setpx or redlock covers
// the process design that behaves like it, with the same expectation.
func TestLikeCoversScenarios(t *testing.T) {
	s, err := scenarios.Lookup("redlock-node-clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Covers("node-redlock") || s.Covers("redis-py") {
		t.Errorf("redlock-node-clock-jump covers node-redlock %v, redis-py %v; want true, false", s.Covers("node-redlock"), s.Covers("redis-py"))
	}
	requireDesign(t, "node-redlock") // unavailable, it is expected as skip
	want, _ := s.Expect("redlock")
	got, _ := s.Expect("node-redlock")
	if got.String() != want.String() {
		t.Errorf("node-redlock expected %s, redlock %s", got, want)
	}
}

// TestProcessCommand: process:CMD runs an adapter command without
// registering it.
func TestProcessCommand(t *testing.T) {
	requireDesign(t, "redis-py")
	algo := "process:" + adapter.Python + " " + filepath.Join(adapter.Dir(), "redis-py", "adapter.py")
	s, err := scenarios.Lookup("crash-holder")
	if err != nil {
		t.Fatal(err)
	}
	o := executePlayed(t, s, algo, "")
	if !o.AsExpected {
		t.Errorf("%s: verdict %s, expected %s; not played %v (report %s)", algo, o.Verdict, o.Expected, o.Unplayed, o.Dir)
	}
}

// TestVirtualTimeRefused: a process design cannot run in virtual time.
func TestVirtualTimeRefused(t *testing.T) {
	if _, err := (sim.Config{Algorithm: "redis-py", VirtualTime: true}).Resolve(); err == nil || !strings.Contains(err.Error(), "virtual time") {
		t.Errorf("Resolve = %v, want a refusal naming virtual time", err)
	}
}

// TestProcessDesignFailsOverDirectly: on redis-server with a replica a
// process design's failover is the harness's direct promotion (its child
// reaches each node at one address and cannot follow Sentinel), and an
// explicit Sentinel failover is refused in one line, or skips a scenario
// that asks for it.
func TestProcessDesignFailsOverDirectly(t *testing.T) {
	requireDesign(t, "redis-py")
	spec, err := sim.Config{Algorithm: "redis-py", Cluster: sim.ClusterConfig{Backend: sim.BackendRedis, Replicas: 1}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if cfg := spec.Config(); cfg.Cluster.Failover.Mode != sim.FailoverDirect {
		t.Errorf("redis-py on redis with a replica fails over by %q, want direct", cfg.Cluster.Failover.Mode)
	}
	spec, err = sim.Config{Algorithm: "setpx", Cluster: sim.ClusterConfig{Backend: sim.BackendRedis, Replicas: 1}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if setpx := spec.Config(); setpx.Cluster.Failover.Mode != sim.FailoverSentinel {
		t.Errorf("setpx fails over by %q, want sentinel (the default)", setpx.Cluster.Failover.Mode)
	}
	if _, err := (sim.Config{Algorithm: "redis-py", Cluster: sim.ClusterConfig{Backend: sim.BackendRedis, Replicas: 1, Failover: sim.FailoverConfig{Mode: sim.FailoverSentinel}}}).Resolve(); err == nil || !strings.Contains(err.Error(), "failover.mode sentinel") {
		t.Errorf("Resolve = %v, want a refusal naming failover.mode sentinel", err)
	}
	s, err := scenarios.Parse("x.yaml", []byte("name: x\nalgorithm: setpx\nbackend: redis\nreplicas: 1\nfailover: {mode: sentinel}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Expect("redis-py"); e.Verdict != vocab.Skip || !strings.Contains(e.Reason, "Sentinel") {
		t.Errorf("redis-py expected %v %q, want skip naming Sentinel", e.Verdict, e.Reason)
	}
}

// children lists the processes whose parent is this test process.
func children(t *testing.T) []string {
	t.Helper()
	// a child being reaped may linger an instant
	deadline := time.Now().Add(2 * time.Second)
	for {
		var out []string
		ents, err := os.ReadDir("/proc")
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		me := strconv.Itoa(os.Getpid())
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			rest := string(stat[strings.LastIndexByte(string(stat), ')')+2:])
			if f := strings.Fields(rest); len(f) > 1 && f[1] == me {
				cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
			}
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestChildThatDoesNotStart: a child that exits before its hello is a
// failure of the machine (lock.ErrNoStart) naming the command and what it
// wrote to stderr, and a command that is not there is no design at all
// (bad input), saying so.
func TestChildThatDoesNotStart(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	_, err := lock.New("process:/bin/sh -c 'echo cannot-import-thing >&2; exit 1'", []redis.UniversalClient{rdb}, lock.Options{})
	if !errors.Is(err, lock.ErrNoStart) || !strings.Contains(err.Error(), "exit") {
		t.Errorf("err = %v, want ErrNoStart naming the command", err)
	}
	if _, err := lock.Lookup("process:/no/such/adapter"); err == nil || !strings.Contains(err.Error(), "command not found: /no/such/adapter") {
		t.Errorf("Lookup = %v, want command not found", err)
	}
}

// TestClientClockFaultsOnProcessDesigns: the client clock regressions
// (a step back, a slow clock, a jump healed before the check) give
// redis-py and node-redlock the verdicts they give setpx and redlock: the
// child's clock moves with the client's (libfaketime), and the lease's
// deadline, a reading of that clock, is mapped through its course.
func TestClientClockFaultsOnProcessDesigns(t *testing.T) {
	for _, name := range []string{"backward-jump-fools-check", "slow-clock-fools-check", "jump-and-heal-before-check"} {
		s, err := scenarios.LoadFile(filepath.Join("..", "scenarios", "testdata", "verdicts", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, algo := range []string{"redis-py", "node-redlock"} {
			t.Run(algo+"/"+name, func(t *testing.T) {
				requireDesign(t, algo)
				info, _ := lock.Lookup(algo)
				if m := info.ClockUnreached(); m != "" {
					if os.Getenv(simtest.RequireEnv) == "1" {
						t.Fatal(m)
					}
					t.Skip("skipping: " + m)
				}
				if !s.Covers(algo) {
					t.Fatalf("%s does not cover %s (it names %v)", name, algo, s.Algorithm)
				}
				got, _ := s.Expect(algo)
				want, _ := s.Expect(info.Like)
				if got.String() != want.String() {
					t.Fatalf("%s expected %s, %s %s", algo, got, info.Like, want)
				}
				o := executePlayed(t, s, algo, "")
				if !o.AsExpected {
					t.Errorf("verdict %s %v, expected %s; not played: %v (report %s)", o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
				}
			})
		}
	}
}
