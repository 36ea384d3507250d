package faults_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// run plays cfg and checks it; on miniredis in virtual time
// (simtest.Virtual). runRealTime keeps the wall clock, and with it the real
// proxies: at least one test of each fault family keeps that path covered.
func run(t *testing.T, cfg sim.Config) (*sim.Result, checker.Result) {
	t.Helper()
	return checked(simtest.Run(t, cfg, simtest.Virtual))
}

func runRealTime(t *testing.T, cfg sim.Config) (*sim.Result, checker.Result) {
	t.Helper()
	return checked(simtest.Run(t, cfg, simtest.WallClock))
}

func checked(res *sim.Result) (*sim.Result, checker.Result) {
	return res, checker.Check(res.History, checker.Config{Fencing: res.Config.Fencing()})
}

func opsOf(h history.History, client int, kind history.Kind) []history.Op {
	var out []history.Op
	for _, op := range h.Ops {
		if op.Client == client && op.Kind == kind {
			out = append(out, op)
		}
	}
	return out
}

// Scenario 8: client 0's write reaches the resource after its lease ran
// out; client 1, which holds the lock by then, writes too.
func TestDelayedWriteToTheResource(t *testing.T) {
	for algo, want := range map[string]vocab.Verdict{"setpx": vocab.Unsafe, "fenced": vocab.Safe} {
		t.Run(algo, func(t *testing.T) {
			res, r := run(t, sim.Config{
				Algorithm: algo,
				Options:   lock.Options{TTL: 300 * time.Millisecond, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
				Clients:   2,
				Duration:  1500 * time.Millisecond,
				Seed:      1,
				Faults: []sim.Planned{{
					Fault: faults.Delay{Links: faults.Links{Groups: [][]string{{"c0"}, {"resource"}}}, Latency: 600 * time.Millisecond},
					Start: sim.Trigger{Client: 0, Point: vocab.PointAfterCheck, Nth: 1},
					For:   time.Second,
				}},
			})
			if !res.Config.VirtualTime {
				// In virtual time every client goes through an in-memory
				// proxy (its wire delay); on sockets nothing needs one.
				assert.Zero(t, res.Config.Cluster.ProxiedClients, "a resource delay needs no proxies")
			}
			kind := history.KindEnter
			if algo == "fenced" {
				kind = history.KindWrite
			}
			first := opsOf(res.History, 0, kind)
			require.NotEmpty(t, first)
			assert.GreaterOrEqual(t, first[0].At-first[0].Call, 600*time.Millisecond, "client 0's first write was delayed")
			assert.Equal(t, want, r.Verdict, "%+v", r)
			if algo == "fenced" {
				assert.Equal(t, history.Fail, first[0].Outcome, "the resource rejected the stale token")
			} else {
				assert.Equal(t, vocab.Unsafe, r.Check("exclusion").Verdict)
			}
		})
	}
}

// In real time: the client faults' real-time coverage on miniredis.
func TestCrashedClientNeverReleases(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		ttl := 300 * time.Millisecond
		res, r := runRealTime(t, sim.Config{
			Algorithm: "setpx",
			Options:   lock.Options{TTL: ttl, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 5 * time.Millisecond}},
			Cluster:   sim.ClusterConfig{Backend: b},
			Clients:   2,
			Duration:  time.Second,
			Seed:      1,
			Faults: []sim.Planned{{
				Fault: faults.CrashClient{Client: 0},
				Start: sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1},
			}},
		})
		var got []history.Op
		for _, op := range opsOf(res.History, 0, history.KindAcquire) {
			if op.Outcome == history.OK {
				got = append(got, op)
			}
		}
		require.Len(t, got, 1, "client 0 acquired once, then crashed")
		assert.Empty(t, opsOf(res.History, 0, history.KindRelease), "a crashed client never releases")
		var after []history.Op
		for _, op := range opsOf(res.History, 1, history.KindAcquire) {
			if op.Outcome == history.OK && op.Call > got[0].Call {
				after = append(after, op)
			}
		}
		require.NotEmpty(t, after, "client 1 got the lock once it expired")
		assert.GreaterOrEqual(t, after[0].Return, got[0].Call+ttl, "not before client 0's key expired")
		assert.Equal(t, vocab.Safe, r.Verdict, "%+v", r)
	})
}

// randomFaults lists what a Random played, in order.
func randomFaults(h history.History) []string {
	var out []history.Op
	for _, op := range h.Ops {
		if op.Kind == history.KindFault && strings.HasPrefix(op.Fault, "random #") {
			out = append(out, op)
		}
	}
	slices.SortFunc(out, func(a, b history.Op) int { return int(a.Call - b.Call) })
	var descs []string
	for _, op := range out {
		descs = append(descs, op.Fault)
	}
	return descs
}

func TestRandomNemesisIsSeededAndHeals(t *testing.T) {
	cfg := func(seed uint64) sim.Config {
		return sim.Config{
			Algorithm: "redlock",
			Options:   lock.Options{TTL: 200 * time.Millisecond, ValidityCheck: true, NodeTimeout: 20 * time.Millisecond},
			Cluster:   sim.ClusterConfig{Nodes: 3, Replicas: 1},
			Clients:   3,
			Duration:  800 * time.Millisecond,
			Seed:      1,
			Faults: []sim.Planned{{
				Fault: faults.Random{Seed: seed, Interval: 30 * time.Millisecond},
				Start: sim.Trigger{At: 10 * time.Millisecond},
				For:   600 * time.Millisecond,
			}},
		}
	}
	res1, _ := run(t, cfg(7))
	res2, _ := run(t, cfg(7))
	res3, _ := run(t, cfg(8))
	a, b, c := randomFaults(res1.History), randomFaults(res2.History), randomFaults(res3.History)
	require.GreaterOrEqual(t, len(a), 5, "%v", a)
	n := min(len(a), len(b))
	assert.Equal(t, a[:n], b[:n], "the same seed plays the same faults")
	assert.NotEqual(t, a[:min(n, len(c))], c[:min(n, len(c))], "another seed plays others")
	for _, op := range res1.History.Ops {
		if op.Kind == history.KindFault {
			assert.Equal(t, history.OK, op.Outcome, "%s: %s", op.Fault, op.Err)
		}
		if op.Kind == history.KindProbe {
			assert.Equal(t, history.OK, op.Outcome, "after the final heal the lock is free again: %s", op.Err)
		}
	}
	assert.True(t, res1.Config.Cluster.ProxiedClients > 0, "random delays and partitions need the clients behind proxies")
}

// ourListeners counts this process's listening TCP sockets.
func ourListeners(t *testing.T) int {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := filepath.Glob("/proc/self/fd/*")
	require.NoError(t, err)
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, file := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 9 && fields[3] == "0A" && inodes[fields[9]] { // 0A: LISTEN
				n++
			}
		}
		f.Close()
	}
	return n
}

// children lists the live processes this one started.
func children(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut after ')'.
		_, rest, ok := strings.Cut(string(b), ") ")
		fields := strings.Fields(rest)
		if ok && len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			out = append(out, s)
		}
	}
	return out
}

// In real time, on real proxies and sockets: the network and node faults'
// real-time coverage on miniredis.
func TestRunsWithFaultsLeaveNothingBehind(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		listeners := ourListeners(t)
		dir := t.TempDir()
		res, _ := runRealTime(t, sim.Config{
			Algorithm: "redlock",
			Options:   lock.Options{TTL: 200 * time.Millisecond, ValidityCheck: true, NodeTimeout: 20 * time.Millisecond},
			Cluster:   sim.ClusterConfig{Backend: b, Nodes: 3, Replicas: 1, Dir: dir},
			Clients:   2,
			Duration:  600 * time.Millisecond,
			Seed:      3,
			Faults: []sim.Planned{
				{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"n0"}, {"r0"}}}}, Start: sim.Trigger{At: 0}},
				{Fault: faults.Delay{Links: faults.Links{Clients: []int{1}}, Latency: 5 * time.Millisecond}, Start: sim.Trigger{At: 50 * time.Millisecond}, For: 200 * time.Millisecond},
				{Fault: faults.Failover{Node: 0}, Start: sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1}},
				{Fault: faults.KillNode{Node: 1, RestartAfter: 50 * time.Millisecond}, Start: sim.Trigger{At: 100 * time.Millisecond}},
				{Fault: faults.PauseNode{Node: 2}, Start: sim.Trigger{At: 200 * time.Millisecond}, For: 100 * time.Millisecond},
				{Fault: faults.ClockJumpNode{Node: 2, By: time.Second}, Start: sim.Trigger{At: 400 * time.Millisecond}},
			},
		})
		for _, op := range res.History.Ops {
			if op.Kind == history.KindFault {
				assert.Equal(t, history.OK, op.Outcome, "%s: %s", op.Fault, op.Err)
			}
		}
		assert.Equal(t, listeners, ourListeners(t), "a proxy or server still listens")
		assert.Empty(t, children(t), "a redis-server outlived the run")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "the cluster's temp dir is left behind")
	})
}
