package matrix

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/shard"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/vocab"
)

// plan is a matrix before it runs: the configuration with its
// defaults, every cell (those that will not run already decided) and the
// runs to make.
type plan struct {
	cfg   Config
	cells []Cell
	jobs  []job
}

// makePlan checks cfg and decides every pair before anything runs, so
// that a typo fails at once rather than after minutes of runs.
func makePlan(cfg Config) (plan, error) {
	if cfg.Scenarios == nil {
		cfg.Scenarios = scenarios.Builtin()
	}
	switch {
	case len(cfg.Scenarios) == 0:
		return plan{}, badMatrix("no scenarios to run")
	case cfg.Runs < 0:
		return plan{}, badMatrix("runs %d: must be at least 1", cfg.Runs)
	case cfg.Parallel < 0:
		return plan{}, badMatrix("parallel %d: must be at least 1", cfg.Parallel)
	case cfg.Timeout < 0:
		return plan{}, badMatrix("timeout %v: must be positive", cfg.Timeout)
	}
	cfg.Runs = max(cfg.Runs, 1)
	if cfg.Shard == (shard.Shard{}) {
		cfg.Shard = shard.All
	}
	if cfg.Shard.Count < 1 || cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count {
		return plan{}, badMatrix("shard %s: want i/n with 0 <= i < n", cfg.Shard)
	}
	if err := planExternal(&cfg); err != nil {
		return plan{}, err
	}
	if cfg.Out == "" {
		cfg.Out = "results"
	}
	if cfg.CheckTimeout == 0 {
		cfg.CheckTimeout = 10 * time.Second
	}
	if err := node.CheckServer(sim.Server(cfg.Server)); err != nil {
		return plan{}, badMatrix("%v", err)
	}
	if cfg.Server != "" && sim.Server(cfg.Server) != sim.ServerRedis {
		switch sim.Backend(cfg.Backend) {
		case "", sim.BackendRedis, sim.BackendRedisCluster:
		default:
			return plan{}, badMatrix("server %s is for the redis backend, not %s", cfg.Server, cfg.Backend)
		}
		// Asked for by name: a missing one is the environment failing,
		// not pairs to skip.
		if _, err := node.LookupServer(sim.Server(cfg.Server), ""); err != nil {
			return plan{}, fmt.Errorf("%w: server %s: %w", sim.ErrHarness, cfg.Server, err)
		}
	}
	switch sim.Backend(cfg.Backend) {
	case "", sim.BackendMiniredis:
	case sim.BackendRedis, sim.BackendRedisCluster:
		// The user asked for real servers: without them nothing can run,
		// which is locksim's environment failing, not a pair to skip.
		if _, err := node.LookupServer(sim.Server(cfg.Server), ""); err != nil {
			return plan{}, fmt.Errorf("%w: backend redis: %w", sim.ErrHarness, err)
		}
	case sim.BackendExternal: // planExternal checked its addresses
	default:
		return plan{}, badMatrix("backend %q: want miniredis, redis or external", cfg.Backend)
	}
	if cfg.Toxiproxy != "" {
		if err := scenarios.CheckAddr(cfg.Toxiproxy); err != nil {
			return plan{}, badMatrix("toxiproxy: %v", err)
		}
	}
	seen := map[string]bool{}
	for _, s := range cfg.Scenarios {
		if seen[s.Name] {
			return plan{}, badMatrix("scenario %q given twice", s.Name)
		}
		seen[s.Name] = true
	}
	algos, err := columns(cfg)
	if err != nil {
		return plan{}, err
	}
	cfg.Algorithms = algos
	if cfg.Parallel == 0 {
		cfg.Parallel = DefaultParallel()
		if allVirtual(cfg) {
			cfg.Parallel = DefaultParallelVirtual()
		}
	}

	p := plan{cfg: cfg}
	for _, s := range cfg.Scenarios {
		for _, algo := range algos {
			c, run, err := planCell(cfg, s, algo)
			if err != nil {
				return plan{}, err
			}
			p.cells = append(p.cells, c)
			if c.Status != CellRan {
				continue
			}
			for i := range cfg.Runs {
				r := *run
				base := deref(s.Seed)
				if cfg.Seed != nil {
					base = *cfg.Seed
				}
				seed := base + uint64(i)
				r.Seed = &seed
				p.jobs = append(p.jobs, job{cell: len(p.cells) - 1, run: i, s: &r, algo: algo})
			}
		}
	}
	p.jobs = ofShard(p.jobs, cfg.Shard)
	return p, nil
}

// planExternal checks the external backend's part of cfg: addresses go
// with backend external (or none), and runs on them go one at a time.
func planExternal(cfg *Config) error {
	if len(cfg.Addrs) == 0 {
		if sim.Backend(cfg.Backend) == sim.BackendExternal {
			return badMatrix("backend external: no addresses (give the masters' host:port)")
		}
		return nil
	}
	switch sim.Backend(cfg.Backend) {
	case "":
		cfg.Backend = string(sim.BackendExternal)
	case sim.BackendExternal:
	default:
		return badMatrix("addresses are for the external backend, not %s", cfg.Backend)
	}
	if err := scenarios.CheckAddrs(cfg.Addrs); err != nil {
		return badMatrix("backend external: %v", err)
	}
	switch {
	case cfg.Parallel == 0:
		cfg.Parallel = 1
	case cfg.Parallel > 1:
		return badMatrix("parallel %d: a run on external servers holds them alone (their guard key), so runs go one at a time (parallel 1)", cfg.Parallel)
	}
	return nil
}

// allVirtual reports whether every run of the matrix goes in virtual time:
// every scenario on miniredis in this process, no --real-time, and no
// process design (their children run on the wall clock).
func allVirtual(cfg Config) bool {
	if cfg.RealTime || cfg.Toxiproxy != "" {
		return false
	}
	for _, s := range cfg.Scenarios {
		backend := cfg.Backend
		if backend == "" {
			backend = s.Backend
		}
		if backend != "" && sim.Backend(backend) != sim.BackendMiniredis {
			return false
		}
	}
	for _, a := range cfg.Algorithms {
		if info, err := lock.Lookup(a); err != nil || info.Process {
			return false
		}
	}
	return true
}

// columns are the designs asked for, checked and without repeats,
// else every design some scenario applies to.
func columns(cfg Config) ([]string, error) {
	var out []string
	if len(cfg.Algorithms) > 0 {
		for _, a := range cfg.Algorithms {
			if _, err := lock.Lookup(a); err != nil {
				return nil, fmt.Errorf("%w: %w", sim.ErrConfig, err)
			}
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
		return out, nil
	}
	for _, a := range lock.Names() {
		for _, s := range cfg.Scenarios {
			if appliesTo(s, a) {
				out = append(out, a)
				break
			}
		}
	}
	// a design a scenario names that lock.Names leaves out (a pinned
	// library version) is a column too
	for _, s := range cfg.Scenarios {
		for _, a := range s.Algorithm {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// appliesTo: a scenario that lists designs applies to those alone.
func appliesTo(s *scenarios.Scenario, algo string) bool {
	return s.Covers(algo)
}

// planCell decides whether a pair runs. A pair that runs comes back with
// the scenario as it will run (the backend override applied).
func planCell(cfg Config, s *scenarios.Scenario, algo string) (Cell, *scenarios.Scenario, error) {
	c := Cell{Scenario: s.Name, Algorithm: algo, Status: CellRan}
	if !appliesTo(s, algo) {
		c.Status, c.AsExpected = CellNA, true
		c.Reason = "the scenario runs only " + strings.Join(s.Algorithm, ", ")
		return c, nil, nil
	}
	run := *s
	external := len(cfg.Addrs) > 0
	if cfg.Backend != "" && !external {
		run.Backend = cfg.Backend
	}
	if cfg.Server != "" && sim.Backend(run.Backend).RunsServer() {
		run.Server = cfg.Server
	}
	exp, has := s.Expect(algo)
	if has {
		c.Expected, c.ExpectedVerdict, c.ExpectedChecks = exp.String(), exp.Verdict, exp.Checks
		if exp.Verdict == vocab.Skip {
			// What the backend asked for cannot do is the reason given
			// first: it holds whatever the design.
			if err := run.BackendRefuses(algo, scenarios.Servers{Addrs: cfg.Addrs}); err != nil && (run.Backend != s.Backend || external) {
				c.Status, c.Reason, c.AsExpected = CellSkip, fmt.Sprintf("not on backend %s: %v", cfg.Backend, err), true
				return c, nil, nil
			}
			c.Status, c.Reason, c.AsExpected = CellSkip, exp.Reason, true
			return c, nil, nil
		}
	}
	if _, err := run.RunConfig(algo, scenarios.Servers{Addrs: cfg.Addrs, Toxiproxy: cfg.Toxiproxy}); err != nil {
		// A scenario that resolves on its own backend but not on the one
		// asked for needs what that backend lacks: a skip, with the
		// reason, not a failure of the whole matrix.
		if run.Backend != s.Backend || external {
			if _, own := s.Config(algo); own == nil {
				c.Status, c.AsExpected = CellSkip, true
				c.Reason = fmt.Sprintf("not on backend %s: %v", cfg.Backend, err)
				return c, nil, nil
			}
		}
		return c, nil, err
	}
	if sim.Backend(run.Backend).RunsServer() && cfg.Backend == "" {
		if _, err := node.LookupServer(sim.Server(run.Server), ""); err != nil {
			c.Status, c.AsExpected = CellSkip, true
			c.Reason = "needs the " + run.Backend + " backend: " + err.Error()
			return c, nil, nil
		}
	}
	return c, &run, nil
}
