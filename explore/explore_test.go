package explore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

func hostCtx(t *testing.T) context.Context {
	return vtime.NewContext(context.Background(), vtime.ForTest(t))
}

// Schedule j of a seed is the same scenario every time, and a valid one,
// for every design and default kind mix; another seed or index draws
// another.
func TestGenerateIsDeterministicAndValid(t *testing.T) {
	points := append(slices.Clone(LoopPoints), "between-setnx-and-expire")
	for _, algo := range lock.Names() {
		cfg := Config{Algorithm: algo, Seed: 7}.withDefaults()
		seen := map[string]bool{}
		for j := range 60 {
			a, err := MarshalScenario(Generate(cfg, points, j))
			require.NoError(t, err)
			b, err := MarshalScenario(Generate(cfg, points, j))
			require.NoError(t, err)
			require.Equal(t, string(a), string(b), "%s schedule %d drawn twice", algo, j)
			seen[string(a)] = true
			_, err = scenarios.Parse("gen.yaml", a)
			require.NoError(t, err, "%s schedule %d:\n%s", algo, j, a)
		}
		assert.Len(t, seen, 60, "%s: every index draws its own schedule", algo)
		other := cfg
		other.Seed = 8
		a, _ := MarshalScenario(Generate(cfg, points, 3))
		b, _ := MarshalScenario(Generate(other, points, 3))
		assert.NotEqual(t, string(a), string(b), "another seed, another schedule")
	}
}

// On a multi-node design some schedules put one node fault on a majority
// of the nodes at one moment (a burst); a single-master design never gets
// one, and no schedule exceeds MaxFaults.
func TestGenerateBursts(t *testing.T) {
	cfg := Config{Algorithm: "redlock", Kinds: []vocab.Kind{"kill-node", "clock-jump-node"}, Seed: 1}.withDefaults()
	bursts := 0
	for j := range 200 {
		s := Generate(cfg, LoopPoints, j)
		require.LessOrEqual(t, len(s.Faults), cfg.MaxFaults)
		for i := 1; i < len(s.Faults); i++ {
			a, b := s.Faults[i-1], s.Faults[i]
			if a.Kind == b.Kind && *a.Node != *b.Node && reflect.DeepEqual(a.At, b.At) && reflect.DeepEqual(a.When, b.When) &&
				reflect.DeepEqual(a.By, b.By) && reflect.DeepEqual(a.For, b.For) {
				bursts++
				if a.When != nil {
					assert.NotSame(t, a.When, b.When, "each fault of a burst has its own trigger")
				}
			}
		}
	}
	assert.Greater(t, bursts, 20, "bursts are drawn")
	// No draw takes down a majority for good (schedule 95 of seed 0 once
	// killed two of three nodes without restart).
	zero := Config{Algorithm: "redlock", Kinds: []vocab.Kind{"kill-node", "clock-jump-node"}}.withDefaults()
	for j := range 400 {
		s := Generate(zero, LoopPoints, j)
		_, err := s.Config("redlock")
		require.NoError(t, err, "schedule %d", j)
	}
	single := Config{Algorithm: "setpx", Kinds: []vocab.Kind{"kill-node"}, Seed: 1}.withDefaults()
	for j := range 50 {
		for _, f := range Generate(single, LoopPoints, j).Faults {
			assert.Equal(t, 0, *f.Node)
		}
	}
}

func TestGenerateFaultFree(t *testing.T) {
	cfg := Config{Algorithm: "setpx", Kinds: []vocab.Kind{KindNone}}.withDefaults()
	require.NoError(t, cfg.validate())
	for j := range 20 {
		assert.Empty(t, Generate(cfg, LoopPoints, j).Faults)
	}
}

// The shards of an exploration run disjoint sets of schedules that
// together are all of them, and a shard's schedules are the same as the
// unsharded exploration's at those indexes.
func TestShardsPartitionTheSchedules(t *testing.T) {
	ctx := hostCtx(t)
	base := Config{Algorithm: "setpx", Kinds: []vocab.Kind{"pause-client"}, Duration: 300 * time.Millisecond, TTL: 100 * time.Millisecond,
		Runs: 13, NoShrink: true, Workers: 2}
	total := 0
	owner := map[int]int{}
	for i := range 3 {
		cfg := base
		cfg.Shard, cfg.Shards = i, 3
		var mu sync.Mutex
		var ran []int
		cfg.onSchedule = func(j int) { mu.Lock(); ran = append(ran, j); mu.Unlock() }
		rep, err := Explore(ctx, cfg)
		require.NoError(t, err)
		total += rep.Runs
		for _, j := range ran {
			_, dup := owner[j]
			require.False(t, dup, "schedule %d ran in shards %d and %d", j, owner[j], i)
			owner[j] = i
			assert.Equal(t, i, j%3)
		}
	}
	assert.Equal(t, 13, total)
	for j := range 13 {
		assert.Contains(t, owner, j, "schedule %d ran in no shard", j)
	}
}

// setnx-expire with a crash between SETNX and EXPIRE deadlocks; shrinking
// drops the faults that have nothing to do with it and keeps the crash.
func TestShrinkSetnxExpireDeadlock(t *testing.T) {
	s := mustParse(t, `name: noisy-deadlock
algorithm: setnx-expire
nodes: 1
clients: 3
duration: 2s
seed: 3
faults:
  - {kind: delay, client: 1, latency: 30ms, at: 100ms, for: 400ms}
  - {kind: pause-client, client: 2, at: 300ms, for: 200ms}
  - {kind: crash-client, client: 0, when: {point: between-setnx-and-expire}}
  - {kind: clock-jump-client, client: 1, by: 300ms, at: 700ms, for: 100ms}
`)
	target := Finding{Check: "liveness", Verdict: "deadlock"}
	r := Rule{Reruns: 10, Need: 8, Workers: 2}
	sh, err := Shrink(hostCtx(t), s, "setnx-expire", target)
	require.NoError(t, err)
	require.True(t, sh.Passed)
	out, _ := MarshalScenario(sh.Scenario)
	t.Logf("shrunk in %d steps (%d tries):\n%s", sh.Steps, sh.Tries, out)
	require.Len(t, sh.Scenario.Faults, 1)
	assert.Equal(t, vocab.KindCrashClient, sh.Scenario.Faults[0].Kind)
	assert.Less(t, *sh.Scenario.Clients, 3)
	k, _, err := r.reproduce(hostCtx(t), sh.Scenario, "setnx-expire", target)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, k, 8, "the shrunk scenario reproduces")
}

// setpx with a client paused inside its critical section past its TTL
// overlaps another client at the resource; the pause given as a time
// becomes a point.
func TestShrinkSetpxPauseExclusion(t *testing.T) {
	s := mustParse(t, `name: pause
algorithm: setpx
options: {ttl: 200ms}
nodes: 1
clients: 2
duration: 2s
seed: 5
faults:
  - {kind: clock-skew-client, client: 1, offset: 50ms, at: 50ms, for: 100ms}
  - {kind: pause-client, client: 0, when: {point: after-enter, nth: 3}, for: 700ms}
  - {kind: delay, client: 0, latency: 10ms, at: 1s, for: 200ms}
`)
	target := Finding{Check: "exclusion", Verdict: "unsafe"}
	sh, err := Shrink(hostCtx(t), s, "setpx", target)
	require.NoError(t, err)
	require.True(t, sh.Passed)
	out, _ := MarshalScenario(sh.Scenario)
	t.Logf("shrunk in %d steps (%d tries):\n%s", sh.Steps, sh.Tries, out)
	require.Len(t, sh.Scenario.Faults, 1)
	f := sh.Scenario.Faults[0]
	assert.Equal(t, vocab.KindPauseClient, f.Kind)
	require.NotNil(t, f.When)
	assert.Equal(t, 1, *f.When.Nth, "the first visit does it")
	assert.Less(t, sh.Scenario.Duration.D(), 2*time.Second, "a shorter run")

	// The kept pause has a margin for real time: a quarter shorter, it
	// still fails as often as the rule asks.
	short := clone(sh.Scenario)
	short.Faults[0].For = dur(scaled(f.For.D(), margin).Round(time.Millisecond))
	k, _, err := Rule{Reruns: 10, Need: 8, Workers: 2}.reproduce(hostCtx(t), short, "setpx", target)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, k, 8, "the pause %v keeps its margin", f.For.D())
}

// setpx-del releases with a plain DEL: a client paused in its critical
// section past its lease overlaps the next holder (exclusion) and then
// deletes that holder's key (claim). An exclusion failure found with more
// faults shrinks to that one pause, though its runs are named after the
// claim.
func TestShrinkSetpxDelPauseExclusion(t *testing.T) {
	s := mustParse(t, `name: pause-del
algorithm: setpx-del
options: {ttl: 200ms}
nodes: 1
clients: 2
duration: 2s
seed: 5
faults:
  - {kind: pause-client, client: 1, at: 50ms, for: 30ms}
  - {kind: pause-client, client: 0, when: {point: after-enter, nth: 3}, for: 700ms}
  - {kind: pause-client, client: 1, at: 1s, for: 300ms}
`)
	target := Finding{Check: "exclusion", Verdict: "unsafe"}
	sh, err := Shrink(hostCtx(t), s, "setpx-del", target)
	require.NoError(t, err)
	require.True(t, sh.Passed)
	out, _ := MarshalScenario(sh.Scenario)
	t.Logf("shrunk in %d steps (%d tries):\n%s", sh.Steps, sh.Tries, out)
	require.Len(t, sh.Scenario.Faults, 1)
	assert.Equal(t, vocab.KindPauseClient, sh.Scenario.Faults[0].Kind)
}

// Every candidate that shortens a length is judged by a probe a quarter
// shorter still, so that what is kept has room for real time's jitter;
// the candidates that drop something have no probe.
func TestShrinkCandidatesKeepAMargin(t *testing.T) {
	s := mustParse(t, `name: lengths
algorithm: redlock
nodes: 3
clients: 2
duration: 2s
faults:
  - {kind: pause-client, client: 0, at: 100ms, for: 800ms}
  - {kind: clock-jump-node, node: 1, by: 400ms, at: 200ms}
  - {kind: delay, client: 1, latency: 80ms, at: 300ms, for: 200ms}
`)
	shortened := 0
	for _, c := range candidates(s, "redlock", outcome{}) {
		if c.probe == nil {
			continue
		}
		shortened++
		cy, _ := MarshalScenario(c.s)
		py, _ := MarshalScenario(c.probe)
		require.NotEqual(t, string(cy), string(py), "a probe differs from its candidate")
		length := func(x *scenarios.Scenario) []time.Duration {
			out := []time.Duration{x.Duration.D()}
			for _, f := range x.Faults {
				for _, d := range []*scenarios.Duration{f.For, f.By, f.Latency} {
					if d != nil {
						out = append(out, d.D())
					}
				}
			}
			return out
		}
		lc, lp := length(c.s), length(c.probe)
		require.Len(t, lp, len(lc))
		for i := range lc {
			if lc[i] != lp[i] {
				assert.InDelta(t, float64(reserved(lc[i])), float64(lp[i]), float64(10*time.Millisecond), "the probe keeps a reserve")
			}
		}
	}
	// the run's duration twice, the pause's and the delay's for, the
	// jump's by and the delay's latency
	assert.Equal(t, 6, shortened)
}

// The reserve is a quarter of a length, and at least minReserve; a
// length that cannot keep it is not shortened at all.
func TestReserve(t *testing.T) {
	assert.Equal(t, 300*time.Millisecond, reserved(400*time.Millisecond), "a quarter")
	assert.Equal(t, 20*time.Millisecond, reserved(30*time.Millisecond), "at least minReserve")
	assert.Equal(t, -20*time.Millisecond, reserved(-30*time.Millisecond), "a clock moved back keeps its sign")
	s := mustParse(t, `name: short
algorithm: setpx
nodes: 1
clients: 2
faults:
  - {kind: pause-client, client: 0, at: 100ms, for: 16ms}
`)
	for _, c := range candidates(s, "setpx", outcome{}) {
		if f := c.s.Faults; len(f) == 1 && f[0].For != nil {
			assert.Equal(t, 16*time.Millisecond, f[0].For.D(), "a 16 ms pause is not halved to 8 ms: no room for its reserve")
		}
	}
}

func mustParse(t *testing.T, y string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(y))
	require.NoError(t, err)
	return s
}

// The report's JSON has the documented shape, the shrunk scenario loads,
// and running it (as locksim run does) gives the expected verdict.
func TestExploreFindsAndReportsJSON(t *testing.T) {
	out := t.TempDir()
	cfg := Config{Algorithm: "setnx-expire", Kinds: []vocab.Kind{"crash-client"}, Runs: 200, MaxFaults: 3,
		Duration: time.Second, MaxShrink: 1, Out: out}
	rep, err := Explore(hostCtx(t), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Violations, "%+v", rep)

	b, err := json.Marshal(rep)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, k := range []string{"algorithm", "runs", "runs_per_min", "violations"} {
		assert.Contains(t, doc, k)
	}
	v := doc["violations"].([]any)[0].(map[string]any)
	for _, k := range []string{"check", "verdict", "signature", "seed", "faults_before", "faults_after", "scenario", "reproduced"} {
		assert.Contains(t, v, k)
	}
	assert.Contains(t, v["reproduced"], "virtual")
	assert.Regexp(t, `^\d+/10$`, v["reproduced"].(map[string]any)["virtual"])

	first := rep.Violations[0]
	assert.Equal(t, "liveness", first.Check)
	assert.Equal(t, "deadlock", first.Verdict)
	assert.LessOrEqual(t, first.FaultsAfter, first.FaultsBefore)
	loaded, err := scenarios.LoadFile(first.Scenario)
	require.NoError(t, err)
	e, ok := loaded.Expect("setnx-expire")
	require.True(t, ok)
	assert.Equal(t, vocab.Deadlock, e.Verdict)
	assert.True(t, first.RunAsExpected, "the shrunk scenario's run is as expected: %+v", first)
	assert.DirExists(t, first.Dir)

	back, err := ReadReport(out)
	require.NoError(t, err)
	assert.Equal(t, rep.Runs, back.Runs)
	summary, err := os.ReadFile(filepath.Join(out, FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(summary), first.Signature)
	assert.Contains(t, string(summary), "locksim run "+first.Scenario)

	// An exploration never writes into another's directory.
	_, err = Explore(hostCtx(t), cfg)
	assert.ErrorIs(t, err, BadInput)
}

func TestMerge(t *testing.T) {
	a := &Report{Algorithm: "setpx", Runs: 100, Elapsed: 6, Shard: "0/2", Violations: []Violation{
		{Check: "exclusion", Verdict: "unsafe", Signature: "exclusion unsafe [pause-client]", Hits: 3, FaultsBefore: 3, FaultsAfter: 2, Reproduced: Reproduced{Virtual: "8/10"}},
		{Check: "claim", Verdict: "unsafe", Signature: "claim unsafe [kill-node]", Hits: 1, FaultsAfter: 1, Reproduced: Reproduced{Virtual: "10/10"}},
	}}
	b := &Report{Algorithm: "setpx", Runs: 50, Elapsed: 3, Shard: "1/2", Violations: []Violation{
		{Check: "exclusion", Verdict: "unsafe", Signature: "exclusion unsafe [pause-client]", Hits: 2, FaultsBefore: 1, FaultsAfter: 1, Reproduced: Reproduced{Virtual: "10/10"}, Schedule: 9},
	}}
	c := &Report{Algorithm: "redlock", Runs: 10, Elapsed: 1, Shard: "0/1"}
	dirs := []string{}
	for _, r := range []*Report{a, b, c} {
		d := t.TempDir()
		require.NoError(t, r.Write(d))
		dirs = append(dirs, d)
	}
	merged, err := MergeDirs(dirs)
	require.NoError(t, err)
	require.Len(t, merged, 2)
	m := merged[0]
	assert.Equal(t, "setpx", m.Algorithm)
	assert.Equal(t, 150, m.Runs)
	assert.InDelta(t, 1000, m.RunsPerMin, 0.01)
	assert.Equal(t, "0/2,1/2", m.Shard)
	require.Len(t, m.Violations, 2)
	ex := m.Violations[1]
	assert.Equal(t, "exclusion unsafe [pause-client]", ex.Signature)
	assert.Equal(t, 5, ex.Hits)
	assert.Equal(t, 9, ex.Schedule, "the one found with the fewest faults is kept: the one an unsharded exploration would have shrunk")
	assert.Len(t, ex.Sightings, 2, "each shard's find is kept")
	assert.Empty(t, merged[1].Violations)

	_, err = MergeDirs(nil)
	assert.ErrorIs(t, err, ErrNoReports)
	_, err = MergeDirs([]string{t.TempDir()})
	assert.Error(t, err)
}

func TestBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algorithm: "paxos"}, "--algos"},
		{Config{Algorithm: "setpx", Kinds: []vocab.Kind{"meteor"}}, "--kinds meteor"},
		{Config{Algorithm: "redlock", Kinds: []vocab.Kind{"failover"}}, "--kinds failover"},
		{Config{Algorithm: "setpx", Kinds: []vocab.Kind{"none", "kill-node"}}, "--kinds none,kill-node"},
		{Config{Algorithm: "setpx", Shard: 2, Shards: 2}, "--shard 2/2"},
		{Config{Algorithm: "setpx", Confirm: "etcd"}, `--confirm "etcd"`},
		{Config{Algorithm: "setpx", Clients: 99}, "--clients 99"},
		{Config{Algorithm: "setpx", TTL: time.Millisecond}, "--ttl 1ms"},
	} {
		_, err := c.cfg.Resolve()
		require.Error(t, err, "%+v", c.cfg)
		assert.True(t, errors.Is(err, BadInput))
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := Explore(context.Background(), Config{Algorithm: "setpx"})
	assert.ErrorIs(t, err, ErrNoHost)
}

// A registered design goes through Test like a built-in one; fault-free
// setpx has nothing to find, and the passing test leaves no directory
// behind.
func TestGoAPIOnARegisteredLock(t *testing.T) {
	registerOnce(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Run("explore", func(t *testing.T) {
		rep := Test(t, "explore-test-setpx", Config{Kinds: []vocab.Kind{KindNone}, Runs: 20, Duration: time.Second})
		require.NotNil(t, rep)
		assert.Equal(t, 20, rep.Runs)
		assert.Empty(t, rep.Violations)
		assert.Empty(t, rep.Failures())
		left, err := filepath.Glob(filepath.Join(tmp, "locksim-explore-*"))
		require.NoError(t, err)
		assert.Len(t, left, 1, "the output directory is there while the test runs")
	})
	left, err := filepath.Glob(filepath.Join(tmp, "locksim-explore-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "a passing test removes its output directory")
}

var registered bool

func registerOnce(t *testing.T) {
	if registered {
		return
	}
	info, err := lock.Lookup("setpx")
	require.NoError(t, err)
	info.Name = "explore-test-setpx"
	require.NoError(t, lock.Register(info))
	registered = true
}

func TestFailuresName(t *testing.T) {
	r := &Report{Algorithm: "x", Violations: []Violation{
		{Check: "claim", Verdict: "unsafe", FaultsAfter: 2, Cause: "kill-node at after-acquire, for < ttl + pause-client at after-enter, for > ttl",
			Scenario: "/tmp/x.yaml", Replay: "locksim run /tmp/x.yaml", Reproduced: Reproduced{Virtual: "9/10", Redis: "7/10"}},
		{Check: "claim", Verdict: "unsafe", CoveredBy: 1, Cause: "kill-node at after-acquire, for < ttl + pause-client at after-enter, for > ttl"},
		{Check: "exclusion", Verdict: "unsafe", Unshrunk: UnshrunkBudget},
	}}
	assert.Equal(t, []string{
		"x: claim UNSAFE (reproduced 9/10 in virtual time, 7/10 on redis-server, 2 faults): kill-node at after-acquire, for < ttl + pause-client at after-enter, for > ttl; 2 signatures; replay: locksim run /tmp/x.yaml",
		"x: 1 more signature not shrunk (budget) (see the report)",
	}, r.Failures())
}

// A failure late in an exploration (here: the second finding's scenario
// cannot be written) keeps what was finished before it: explore.json
// lists the first finding, whose scenario file is on disk, and counts the
// rest as pending.
func TestLateFailureKeepsFinishedFindings(t *testing.T) {
	out := t.TempDir()
	scen := filepath.Join(out, DirScenarios)
	moved := filepath.Join(t.TempDir(), "kept")
	cfg := Config{Algorithm: "setnx-expire", Kinds: []vocab.Kind{"crash-client", "pause-client"}, Runs: 200, MaxFaults: 3,
		Duration: time.Second, MaxShrink: 1, Out: out, Confirm: ConfirmNone,
		Progress: func(p Progress) {
			if strings.HasPrefix(p.Phase, "shrink 2/") {
				// Its scenarios directory turns into a file: the
				// second finding cannot be written.
				if err := os.Rename(scen, moved); err == nil {
					_ = os.WriteFile(scen, []byte("in the way\n"), 0o644)
				}
			}
		}}
	rep, err := Explore(hostCtx(t), cfg)
	require.Error(t, err)
	require.GreaterOrEqual(t, len(rep.Violations)+rep.Pending, 2, "the exploration needs two findings: %+v", rep)
	back, rerr := ReadReport(out)
	require.NoError(t, rerr, "the findings finished before the failure are kept")
	require.Len(t, back.Violations, 1)
	assert.Positive(t, back.Pending)
	assert.FileExists(t, filepath.Join(moved, filepath.Base(back.Violations[0].Scenario)))
	assert.Equal(t, out, rep.Written)
}
