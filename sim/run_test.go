package sim_test

import (
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

// End-to-end runs: a real design against real nodes, faults fired at exact
// points, the history checked: the verdicts each design is known for.

// runChecked plays cfg and checks it; on miniredis in virtual time
// (simtest.Virtual), so its verdict is the schedule's, not the machine's.
// runCheckedRealTime keeps the wall clock (and, on miniredis, real sockets
// and toxiproxy).
func runChecked(t *testing.T, cfg sim.Config) (*sim.Result, checker.Result) {
	t.Helper()
	return checked(simtest.Run(t, cfg, simtest.Virtual))
}

func runCheckedRealTime(t *testing.T, cfg sim.Config) (*sim.Result, checker.Result) {
	t.Helper()
	return checked(simtest.Run(t, cfg, simtest.WallClock))
}

func checked(res *sim.Result) (*sim.Result, checker.Result) {
	return res, checker.Check(res.History, checker.Config{Fencing: res.Config.Fencing()})
}

func verdicts(r checker.Result) map[string]vocab.Verdict {
	out := map[string]vocab.Verdict{"overall": r.Verdict}
	for _, c := range r.Checks {
		out[c.Name] = c.Verdict
	}
	return out
}

// gcPause is Kleppmann's scenario: client 0 is paused 1 s (TTL 500 ms) at
// point; client 1 gets the lock meanwhile. The pause ends when client 1 is
// inside its critical section, so any overlap is certain, not a matter of
// timing.
func gcPause(backend sim.Backend, point history.Point) sim.Config {
	return sim.Config{
		Algorithm: "redlock",
		Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, NodeTimeout: 50 * time.Millisecond},
		Cluster:   sim.ClusterConfig{Backend: backend, Nodes: 5},
		Clients:   2,
		Duration:  2 * time.Second,
		Hold:      50 * time.Millisecond,
		Seed:      1,
		Faults: []sim.Planned{{
			// Client 1 starts once client 0 holds the lock, so that client
			// 1's first entry is the one during the pause.
			Fault: faults.PauseClient{Client: 1},
			Start: sim.Trigger{Client: 1, Point: vocab.PointBeforeAcquire, Nth: 1},
			For:   300 * time.Millisecond,
			Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1},
		}, {
			Fault: faults.PauseClient{Client: 0},
			Start: sim.Trigger{Client: 0, Point: point, Nth: 1},
			For:   time.Second,
			Until: &sim.Trigger{Client: 1, Point: vocab.PointAfterEnter, Nth: 1},
		}},
	}
}

// In real time: TestVirtualTimeGCPause plays the same in virtual time.
func TestRedlockGCPauseAfterCheckIsUnsafeAtExclusionOnly(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := runCheckedRealTime(t, gcPause(b, vocab.PointAfterCheck))
		v := verdicts(r)
		assert.Equal(t, vocab.Unsafe, v["overall"], "%+v", r)
		assert.Equal(t, vocab.Unsafe, v["exclusion"], "client 0 entered after its lease ran out")
		assert.Equal(t, vocab.Safe, v["claim"], "Redlock kept its promise: client 1 acquired only after client 0's validity ended")
		assert.True(t, r.SweepAgrees)
		w := r.Check("exclusion").Witnesses
		require.NotEmpty(t, w)
		assert.ElementsMatch(t, []int{0, 1}, []int{w[0].A.Client, w[0].B.Client})
		require.NotEmpty(t, w[0].Faults, "the witness names the pause")
		assert.Contains(t, w[0].Faults[0].Desc, "pause-client 0")
		assert.Empty(t, unfired(res), "the pause must have fired")
	})
}

func TestRedlockGCPauseBeforeCheckIsSafe(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := runChecked(t, gcPause(b, vocab.PointAfterAcquire))
		assert.Equal(t, vocab.Safe, r.Verdict, "%+v", verdicts(r))
		assert.Empty(t, unfired(res))
		failedChecks := 0
		for _, op := range res.History.Ops {
			if op.Kind == sim.KindCheck && op.Client == 0 && op.Outcome == sim.Fail {
				failedChecks++
			}
		}
		assert.Positive(t, failedChecks, "client 0's validity check caught the expired lease")
	})
}

func unfired(res *sim.Result) []string {
	var out []string
	for _, n := range res.Notes {
		if len(n) > 0 && contains(n, "never fired") {
			out = append(out, n)
		}
	}
	return out
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// In virtual time (runChecked on miniredis): on the wall clock a loaded
// machine or the race detector stretched every round of eight contending
// Redlock clients until, in some runs, none ever counted a majority within
// its validity, and the run had no lease to judge (unknown). Virtual time
// runs the same schedule however slow the CPU; it also issues several
// times the operations of a real-time second (no round trip costs time),
// hence a shorter duration, and fewer runs under the race detector, which
// looks for data races, not for the schedule.
func TestNoFaultsEightClientsSafeEveryRun(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	} else if raceEnabled {
		runs = 5
	}
	for _, algo := range []string{"setpx", "redlock"} {
		t.Run(algo, func(t *testing.T) {
			safe := 0
			for i := range runs {
				nodes := 1
				if algo == "redlock" {
					nodes = 5
				}
				_, r := runChecked(t, sim.Config{
					Algorithm: algo,
					Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 5 * time.Millisecond}},
					Cluster:   sim.ClusterConfig{Nodes: nodes},
					Clients:   8,
					Duration:  300 * time.Millisecond,
					Hold:      5 * time.Millisecond,
					Think:     time.Millisecond,
					Seed:      uint64(i + 1),
				})
				if r.Verdict == vocab.Safe {
					safe++
				} else {
					t.Errorf("run %d: %v", i, verdicts(r))
				}
				assert.Positive(t, r.Ops)
			}
			t.Logf("%s: safe in %d of %d runs", algo, safe, runs)
		})
	}
}

func TestSetnxExpireCrashBetweenIsDeadlock(t *testing.T) {
	res, r := runChecked(t, sim.Config{
		Algorithm: "setnx-expire",
		Options:   lock.Options{TTL: 300 * time.Millisecond, ValidityCheck: true},
		Clients:   2,
		Duration:  time.Second,
		Seed:      1,
		Faults: []sim.Planned{{
			Fault: faults.CrashClient{Client: 0},
			Start: sim.Trigger{Client: 0, Point: vocab.PointBetweenSetnxAndExpire, Nth: 1},
		}},
	})
	assert.Empty(t, unfired(res))
	assert.Equal(t, vocab.Deadlock, r.Verdict, "%+v", verdicts(r))
	assert.Equal(t, vocab.Deadlock, r.Check("liveness").Verdict)
}

// TestSilentNodeCannotHangTheHarness: every node stops answering for the
// whole run; commands time out at the node timeout, the run returns (under
// runChecked's hang guard) with no client operation begun after its
// duration and grace, the heal resumes the nodes and the probe gets the lock.
//
// In real time: the point is the wall-clock cut-off of real sockets.
func TestSilentNodeCannotHangTheHarness(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := runCheckedRealTime(t, sim.Config{
			Algorithm: "setpx",
			Options:   lock.Options{TTL: 300 * time.Millisecond, ValidityCheck: true},
			Cluster:   sim.ClusterConfig{Backend: b, Nodes: 1},
			Clients:   3,
			Duration:  time.Second,
			Seed:      1,
			Faults:    []sim.Planned{{Fault: faults.PauseNode{Node: 0}, Start: sim.Trigger{At: 100 * time.Millisecond}}},
		})
		assert.Equal(t, vocab.Safe, r.Check("liveness").Verdict, "healing resumes the node")
		cutOff := res.Config.Duration + res.Config.Grace
		unknown := 0
		for _, op := range res.History.Ops {
			if op.Kind == sim.KindAcquire && op.Outcome == sim.Unknown {
				unknown++
			}
			if op.Client != history.NoClient {
				assert.LessOrEqual(t, op.Call, cutOff, "client %d began %s after the run's duration and grace (%v): the silent node held the run: %+v", op.Client, op.Kind, cutOff, op)
			}
		}
		assert.Positive(t, unknown, "acquires sent to the silent node time out as unknown, never as refusals")
	})
}

// A cycle cut off at the end of the run (here: a hold longer than the
// duration plus its grace) leaves its lease unreleased; its watchdog must
// stop with it. A renewal that went on would keep the lock from the
// liveness probe: a deadlock the lock did not cause.
func TestCutOffCycleStopsItsWatchdog(t *testing.T) {
	for _, algo := range []string{"setpx", "reentrant"} {
		t.Run(algo, func(t *testing.T) {
			res, cr := runChecked(t, sim.Config{
				Algorithm: algo,
				Options:   lock.Options{TTL: 300 * time.Millisecond, Watchdog: true, ValidityCheck: true},
				Cluster:   sim.ClusterConfig{Backend: sim.BackendMiniredis, Nodes: 1},
				Clients:   1,
				Duration:  300 * time.Millisecond,
				Grace:     200 * time.Millisecond,
				Hold:      5 * time.Second,
			})
			renewals := 0
			for _, op := range res.History.Ops {
				if op.Kind == sim.KindExtend && op.Outcome == sim.OK {
					renewals++
				}
			}
			require.Positive(t, renewals, "the watchdog never renewed: the cut-off is not tested")
			live := cr.Check("liveness")
			assert.Equal(t, vocab.Safe, live.Verdict, live.Detail)
		})
	}
}

// A crashed client never runs again: a client crashed while it retries an
// acquire (here cut off from its node) makes no further attempt.
func TestCrashedClientMakesNoFurtherAttempt(t *testing.T) {
	// redlock announces no point of its own before an attempt, so only
	// the client loop can stop its retries
	res, _ := runChecked(t, sim.Config{
		Algorithm: "redlock",
		Options:   lock.Options{TTL: 300 * time.Millisecond, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
		Cluster:   sim.ClusterConfig{Backend: sim.BackendMiniredis, Nodes: 3},
		Clients:   1,
		Duration:  600 * time.Millisecond,
		Faults: []sim.Planned{
			{Fault: faults.Partition{Links: faults.Links{Groups: [][]string{{"c0"}, {"n0", "n1", "n2"}}}}, Start: sim.Trigger{Client: 0, Point: vocab.PointBeforeAcquire, Nth: 1}},
			{Fault: faults.CrashClient{Client: 0}, Start: sim.Trigger{At: 200 * time.Millisecond}},
		},
	})
	var crashed time.Duration
	for _, op := range res.History.Ops {
		if op.Kind == sim.KindFault && strings.HasPrefix(op.Fault, "crash-client") {
			crashed = op.Call
		}
	}
	require.Positive(t, crashed, "the crash never fired")
	for _, op := range res.History.Ops {
		if op.Kind == sim.KindAcquire {
			assert.Less(t, op.Call, crashed, "an attempt called after the crash: %+v", op)
		}
	}
}
