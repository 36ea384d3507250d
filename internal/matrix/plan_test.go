package matrix

import (
	"errors"
	"runtime/metrics"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// threeAddrs are external masters no test dials.
var threeAddrs = []string{"10.0.0.1:6379", "10.0.0.2:6379", "redis-3.example:6380"}

func mustParse(t *testing.T, yaml string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	require.NoError(t, err)
	return s
}

// TestPlanMatrixCells: every pair is decided before anything runs, and a
// pair that is not run says why.
func TestPlanMatrixCells(t *testing.T) {
	skipping := mustParse(t, `name: skipping
seed: 10
expect:
  fenced: {verdict: skip, reason: "no tokens to test here"}
  "*": safe
`)
	listed := mustParse(t, `name: listed
algorithm: [setpx]
expect: {"*": safe}
`)
	p, err := makePlan(Config{Scenarios: []*scenarios.Scenario{skipping, listed}, Algorithms: []string{"setpx", "fenced"}, Runs: 3})
	require.NoError(t, err)
	require.Len(t, p.cells, 4)

	byPair := map[string]Cell{}
	for _, c := range p.cells {
		byPair[c.Scenario+"/"+c.Algorithm] = c
	}
	assert.Equal(t, CellRan, byPair["skipping/setpx"].Status)
	assert.Equal(t, CellSkip, byPair["skipping/fenced"].Status)
	assert.Equal(t, "no tokens to test here", byPair["skipping/fenced"].Reason)
	assert.Equal(t, CellRan, byPair["listed/setpx"].Status)
	assert.Equal(t, CellNA, byPair["listed/fenced"].Status)
	assert.Contains(t, byPair["listed/fenced"].Reason, "only setpx")

	// Runs: K per pair that runs, seeds the scenario's seed + i, each
	// run with its own copy of the scenario.
	require.Len(t, p.jobs, 2*3)
	var seeds []uint64
	for _, j := range p.jobs[:3] {
		assert.Equal(t, "skipping", j.s.Name)
		seeds = append(seeds, *j.s.Seed)
	}
	assert.Equal(t, []uint64{10, 11, 12}, seeds)
	assert.Equal(t, uint64(10), *skipping.Seed, "the caller's scenario is left alone")
	assert.Equal(t, []uint64{0, 1, 2}, []uint64{*p.jobs[3].s.Seed, *p.jobs[4].s.Seed, *p.jobs[5].s.Seed}, "no seed: 0 + i")
}

// TestPlanMatrixBackendLacks: a scenario that needs what the chosen
// backend lacks is a skip with the reason, not a failure.
func TestPlanMatrixBackendLacks(t *testing.T) {
	s := mustParse(t, `name: needs-fsync
backend: redis
persistence: always
expect: {"*": safe}
`)
	p, err := makePlan(Config{Scenarios: []*scenarios.Scenario{s}, Algorithms: []string{"setpx"}, Backend: "miniredis"})
	require.NoError(t, err)
	require.Len(t, p.cells, 1)
	assert.Equal(t, CellSkip, p.cells[0].Status)
	assert.Contains(t, p.cells[0].Reason, "not on backend miniredis")
	assert.Contains(t, p.cells[0].Reason, "persistence")
	assert.Empty(t, p.jobs)
}

// TestPlanMatrixExternalLacks: on the external backend, a pair whose
// scenario needs process control, replicas, persistence or another node
// count is a skip naming what it needs; the rest run, one at a time.
func TestPlanMatrixExternalLacks(t *testing.T) {
	const head = "algorithm: setpx\nnodes: 3\nexpect: {\"*\": safe}\n"
	for _, tc := range []struct {
		name   string
		yaml   string
		reason []string // none: the pair runs
	}{
		{"client pause", head + "faults:\n  - {kind: pause-client, client: 0, at: 10ms, for: 1s}\n", nil},
		{"partition", head + "faults:\n  - {kind: partition, groups: [[c0], [nodes]], at: 10ms, for: 100ms}\n", nil},
		{"timed pause-node", head + "faults:\n  - {kind: pause-node, node: 0, at: 10ms, for: 100ms}\n", nil},
		{"no nodes given", "algorithm: setpx\nexpect: {\"*\": safe}\n", nil},
		{"kill-node", head + "faults:\n  - {kind: kill-node, node: 0, at: 10ms}\n", []string{"kill-node", "process control"}},
		{"clock-jump-node", head + "faults:\n  - {kind: clock-jump-node, node: 0, by: 1s, at: 10ms}\n", []string{"clock-jump-node", "process control"}},
		{"clock-rate-node", head + "faults:\n  - {kind: clock-rate-node, node: 0, rate: 2, at: 10ms}\n", []string{"clock-rate-node", "process control"}},
		{"open pause-node", head + "faults:\n  - {kind: pause-node, node: 0, at: 10ms}\n", []string{"pause-node", "for"}},
		{"failover", "algorithm: setpx\nnodes: 3\nreplicas: 1\nexpect: {\"*\": safe}\nfaults:\n  - {kind: failover, node: 0, at: 10ms}\n", []string{"failover", "process control"}},
		{"persistence", "algorithm: setpx\nnodes: 3\nbackend: redis\npersistence: always\nexpect: {\"*\": safe}\n", []string{"persistence"}},
		{"other node count", "algorithm: setpx\nnodes: 5\nexpect: {\"*\": safe}\n", []string{"5 nodes", "3 addresses"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, "name: ext\n"+tc.yaml)
			p, err := makePlan(Config{Scenarios: []*scenarios.Scenario{s}, Addrs: threeAddrs, Runs: 2})
			require.NoError(t, err)
			assert.Equal(t, string(sim.BackendExternal), p.cfg.Backend, "addresses imply the external backend")
			assert.Equal(t, 1, p.cfg.Parallel, "runs on shared servers go one at a time")
			require.Len(t, p.cells, 1)
			c := p.cells[0]
			if tc.reason == nil {
				assert.Equal(t, CellRan, c.Status, c.Reason)
				require.Len(t, p.jobs, 2)
				return
			}
			assert.Equal(t, CellSkip, c.Status)
			assert.True(t, c.AsExpected, "a skip is not a failure")
			assert.Contains(t, c.Reason, "not on backend external")
			for _, r := range tc.reason {
				assert.Contains(t, c.Reason, r)
			}
			assert.Empty(t, p.jobs)
		})
	}
}

func TestPlanMatrixBadInput(t *testing.T) {
	s := mustParse(t, "name: one\nexpect: {\"*\": safe}\n")
	for name, cfg := range map[string]Config{
		"unknown design":         {Scenarios: []*scenarios.Scenario{s}, Algorithms: []string{"bogus"}},
		"scenario twice":         {Scenarios: []*scenarios.Scenario{s, s}},
		"negative runs":          {Scenarios: []*scenarios.Scenario{s}, Runs: -1},
		"negative workers":       {Scenarios: []*scenarios.Scenario{s}, Parallel: -2},
		"unknown backend":        {Scenarios: []*scenarios.Scenario{s}, Backend: "etcd"},
		"no scenarios":           {Scenarios: []*scenarios.Scenario{}},
		"external, no addresses": {Scenarios: []*scenarios.Scenario{s}, Backend: "external"},
		"addresses on miniredis": {Scenarios: []*scenarios.Scenario{s}, Backend: "miniredis", Addrs: threeAddrs},
		"bad address":            {Scenarios: []*scenarios.Scenario{s}, Addrs: []string{"10.0.0.1"}},
		"parallel on external":   {Scenarios: []*scenarios.Scenario{s}, Addrs: threeAddrs, Parallel: 3},
		"bad toxiproxy":          {Scenarios: []*scenarios.Scenario{s}, Toxiproxy: "toxi.example"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := makePlan(cfg)
			require.Error(t, err)
			assert.True(t, scenarios.IsBadInput(err), "%v is bad input", err)
		})
	}
	_, err := makePlan(Config{Scenarios: []*scenarios.Scenario{s}, Algorithms: []string{"bogus"}})
	assert.Contains(t, err.Error(), `"bogus"`, "the error names the value")
}

// TestPlanMatrixSeed: a base seed replaces every scenario's own; run i
// still takes seed + i.
func TestPlanMatrixSeed(t *testing.T) {
	s := mustParse(t, "name: seeded\nseed: 10\nalgorithm: [setpx]\nexpect: {\"*\": safe}\n")
	base := uint64(100)
	p, err := makePlan(Config{Scenarios: []*scenarios.Scenario{s}, Runs: 3, Seed: &base})
	require.NoError(t, err)
	var seeds []uint64
	for _, j := range p.jobs {
		seeds = append(seeds, *j.s.Seed)
	}
	assert.Equal(t, []uint64{100, 101, 102}, seeds)
	assert.Equal(t, uint64(10), *s.Seed, "the caller's scenario is left alone")
}

// TestPlanMatrixDefaults: every built-in, every design, one run, one more
// worker than cores.
func TestPlanMatrixDefaults(t *testing.T) {
	p, err := makePlan(Config{})
	require.NoError(t, err)
	assert.Len(t, p.cfg.Scenarios, len(scenarios.Builtin()))
	assert.NotEmpty(t, p.cfg.Algorithms)
	assert.Equal(t, 1, p.cfg.Runs)
	want := DefaultParallelVirtual()
	for _, a := range p.cfg.Algorithms {
		if info, err := lock.Lookup(a); err == nil && info.Process {
			want = DefaultParallel() // a process design runs on the wall clock
		}
	}
	for _, s := range p.cfg.Scenarios {
		if sim.Backend(s.Backend).RunsServer() {
			want = DefaultParallel() // server processes run on the wall clock
		}
	}
	assert.Equal(t, want, p.cfg.Parallel)
	assert.Equal(t, "results", p.cfg.Out)
	assert.Len(t, p.cells, len(p.cfg.Scenarios)*len(p.cfg.Algorithms))
}

// Six runs per core only when every run goes in virtual time; anything on
// the wall clock keeps three per core, and a given --parallel stands.
func TestPlanParallelByClock(t *testing.T) {
	crash, err := scenarios.Lookup("crash-holder")
	require.NoError(t, err)
	onRedis := *crash
	onRedis.Backend = "redis"
	for _, tc := range []struct {
		name string
		cfg  Config
		want bool
	}{
		{"miniredis, Go designs", Config{Algorithms: []string{"setpx", "redlock"}}, true},
		{"--real-time", Config{Algorithms: []string{"setpx"}, RealTime: true}, false},
		{"toxiproxy server", Config{Algorithms: []string{"setpx"}, Toxiproxy: "127.0.0.1:8474"}, false},
		{"a scenario on redis-server", Config{Algorithms: []string{"setpx"}, Scenarios: []*scenarios.Scenario{crash, &onRedis}}, false},
		{"--backend redis", Config{Algorithms: []string{"setpx"}, Backend: "redis"}, false},
		{"--backend miniredis over a redis scenario", Config{Algorithms: []string{"setpx"}, Backend: "miniredis", Scenarios: []*scenarios.Scenario{&onRedis}}, true},
	} {
		if tc.cfg.Scenarios == nil {
			tc.cfg.Scenarios = []*scenarios.Scenario{crash}
		}
		assert.Equal(t, tc.want, allVirtual(tc.cfg), tc.name)
	}
	p, err := makePlan(Config{Algorithms: []string{"setpx"}, Scenarios: []*scenarios.Scenario{crash}})
	require.NoError(t, err)
	assert.Equal(t, DefaultParallelVirtual(), p.cfg.Parallel)
	p, err = makePlan(Config{Algorithms: []string{"setpx"}, Scenarios: []*scenarios.Scenario{crash}, RealTime: true})
	require.NoError(t, err)
	assert.Equal(t, DefaultParallel(), p.cfg.Parallel)
	p, err = makePlan(Config{Algorithms: []string{"setpx"}, Scenarios: []*scenarios.Scenario{crash}, Parallel: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, p.cfg.Parallel)
}

func TestSummarize(t *testing.T) {
	m := Matrix{Cells: []Cell{
		{Status: CellRan, Runs: []CellRun{{Verdict: "unsafe", AsExpected: true}, {Verdict: "unsafe", AsExpected: true}}},
		{Status: CellRan, Runs: []CellRun{{Verdict: "safe", AsExpected: false}, {Verdict: "unsafe", AsExpected: true}}},
		{Status: CellRan, Runs: []CellRun{{Verdict: "safe", AsExpected: true}, {Error: "boom"}}},
		{Status: CellSkip, AsExpected: true, Reason: "n/a here"},
		{Status: CellNA, AsExpected: true},
	}}
	m.summarize()
	assert.Equal(t, "unsafe", m.Cells[0].Verdict)
	assert.Equal(t, 2, m.Cells[0].Agreed)
	assert.True(t, m.Cells[0].AsExpected)
	assert.Equal(t, Mixed, m.Cells[1].Verdict)
	assert.Equal(t, 1, m.Cells[1].Agreed)
	assert.False(t, m.Cells[1].AsExpected)
	assert.Equal(t, CellError, m.Cells[2].Status)
	assert.Equal(t, "boom", m.Cells[2].Reason)
	assert.Equal(t, Totals{Cells: 2, Agreed: 1, Differ: 1, Skipped: 1, NA: 1, Errors: 1}, m.Totals)
	assert.False(t, m.OK())
}

func TestQuantileSince(t *testing.T) {
	start := &metrics.Float64Histogram{Counts: []uint64{5, 0, 0}, Buckets: []float64{0, 0.001, 0.01, 0.1}}
	end := &metrics.Float64Histogram{Counts: []uint64{5 + 98, 1, 1}, Buckets: start.Buckets}
	assert.Equal(t, 0.001, quantileSince(start, end, 0.5))
	assert.Equal(t, 0.01, quantileSince(start, end, 0.99))
	assert.Equal(t, 0.1, quantileSince(start, end, 1))
	assert.Equal(t, 0.0, quantileSince(end, end, 0.99), "no new samples")
}

func TestBadMatrixIsConfig(t *testing.T) {
	assert.True(t, errors.Is(badMatrix("x"), sim.ErrConfig))
}

// TestPlanMatrixBackendBeforeSkip: a pair the backend cannot play is
// skipped for that reason, on the external backend and on a --backend
// override alike, even where the scenario expects the design as skip for
// a reason of its own: the backend's holds whatever the design. On the
// scenario's own backend the scenario's reason stands.
func TestPlanMatrixBackendBeforeSkip(t *testing.T) {
	killNode := mustParse(t, `name: kill
nodes: 3
faults:
  - {kind: kill-node, node: 0, at: 10ms, restart_after: 50ms}
expect: {redlock: any, "*": {verdict: skip, reason: "a Redlock scenario"}}
`)
	fsync := mustParse(t, `name: fsync
backend: redis
persistence: always
nodes: 3
expect: {redlock: any, "*": {verdict: skip, reason: "a Redlock scenario"}}
`)
	for _, tc := range []struct {
		name   string
		cfg    Config
		reason []string
		not    string
	}{
		{"external, kill-node", Config{Scenarios: []*scenarios.Scenario{killNode}, Addrs: threeAddrs}, []string{"not on backend external", "kill-node", "process control"}, "a Redlock scenario"},
		{"miniredis, persistence", Config{Scenarios: []*scenarios.Scenario{fsync}, Backend: "miniredis"}, []string{"not on backend miniredis", "persistence"}, "a Redlock scenario"},
		{"own backend", Config{Scenarios: []*scenarios.Scenario{killNode}}, []string{"a Redlock scenario"}, "backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Algorithms = []string{"setpx", "redlock"}
			p, err := makePlan(tc.cfg)
			require.NoError(t, err)
			var c *Cell
			for i := range p.cells {
				if p.cells[i].Algorithm == "setpx" {
					c = &p.cells[i]
				}
			}
			require.NotNil(t, c)
			assert.Equal(t, CellSkip, c.Status)
			assert.True(t, c.AsExpected)
			for _, r := range tc.reason {
				assert.Contains(t, c.Reason, r)
			}
			assert.NotContains(t, c.Reason, tc.not)
		})
	}
}

// TestPlanMatrixPinnedColumns: without --algos, the pinned versions a
// scenario names are its columns, as the designs it applies to are.
func TestPlanMatrixPinnedColumns(t *testing.T) {
	require.NoError(t, lock.RegisterPinned(lock.Pinned{Library: "planlib", Versions: []string{"v1", "v2"}, New: func(v string) lock.Info {
		return lock.Info{Name: "planlib@" + v, Like: "setpx", Process: true, Expires: true, New: func(_ []redis.UniversalClient, _ lock.Options) (lock.Locker, error) {
			return nil, errors.New("not run")
		}}
	}}))
	s := mustParse(t, `name: pinned
algorithm: [planlib@v1, planlib@v2]
expect: {"*": safe}
`)
	cols, err := columns(Config{Scenarios: []*scenarios.Scenario{s}})
	require.NoError(t, err)
	assert.Equal(t, []string{"planlib@v1", "planlib@v2"}, cols)
}
