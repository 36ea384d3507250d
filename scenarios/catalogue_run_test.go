package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, simtest.LeakOptions()...) }

// catalogueEnv set to "full" runs every pair even under -short or -race.
const catalogueEnv = "LOCKSIM_CATALOGUE"

// shortSubset are the designs the short catalogue runs: one of each family.
var shortSubset = map[string]bool{"naive": true, "setnx-expire": true, "setpx": true, "redlock": true, "fenced": true}

// TestCatalogue runs every built-in scenario for every design it applies to
// and compares the verdict with the scenario's expectation. The expectations
// are claims; this is where they are checked, on every run of the suite.
// On miniredis the runs go in virtual time, so the whole catalogue runs
// even under -short, and a loaded machine cannot blur a verdict; under the
// race detector, which multiplies the CPU each run costs, one design of
// each family runs.
func TestCatalogue(t *testing.T) {
	full := os.Getenv(catalogueEnv) == "full" || !raceEnabled
	if !full {
		t.Logf("race detector: designs %v; %s=full runs every pair", keys(shortSubset), catalogueEnv)
	}
	var pairs []pair
	for _, s := range scenarios.Builtin() {
		if clusterOnly(s) {
			continue // real processes: TestCatalogueOnRedisServer runs it
		}
		for _, algo := range s.Algorithms() {
			if full || shortSubset[algo] {
				pairs = append(pairs, pair{s, algo})
			}
		}
	}
	var g golden
	runPairs(t, pairs, virtualTime, g.add)
	g.compare(t, full)
}

// TestCatalogueInRealTime runs the catalogue on miniredis on the wall
// clock, as --real-time does: the same verdicts in both modes are what
// makes virtual time the default. On the wall clock a loaded machine can
// stretch a run past what its scenario allows (a node timeout, a pause
// that ends too late), so it runs in CI's catalogue step, on a machine of
// its own, and where asked (LOCKSIM_CATALOGUE=full).
func TestCatalogueInRealTime(t *testing.T) {
	if os.Getenv(catalogueEnv) != "full" {
		t.Skipf("wall-clock timing: runs in CI's catalogue step (%s=full)", catalogueEnv)
	}
	var pairs []pair
	for _, s := range scenarios.Builtin() {
		if clusterOnly(s) {
			continue // no miniredis to run it on
		}
		for _, algo := range s.Algorithms() {
			pairs = append(pairs, pair{s, algo})
		}
	}
	runPairs(t, pairs, realTime)
}

// TestCatalogueOnRedisServer runs the scenarios on real redis-server nodes,
// so the verdicts do not hinge on miniredis: every pair in the full suite
// (CI's catalogue step), one design of each family otherwise, and every
// pair of the Redis Cluster scenarios (backend redis-cluster) always.
func TestCatalogueOnRedisServer(t *testing.T) {
	full := os.Getenv(catalogueEnv) == "full"
	switch {
	case raceEnabled && !full:
		t.Skipf("timing-sensitive under -race; CI runs it in its catalogue step without -race (%s=full forces it)", catalogueEnv)
	case testing.Short() && !full:
		t.Skipf("-short: the redis-server catalogue runs in the full suite (%s=full forces it)", catalogueEnv)
	}
	simtest.RequireRedisServer(t)
	var pairs []pair
	for _, s := range scenarios.Builtin() {
		if !clusterOnly(s) {
			s.Backend = string(sim.BackendRedis)
		}
		for _, algo := range s.Algorithms() {
			// every cluster pair: no other catalogue test runs them
			if full || algo == "setpx" || algo == "redlock" || clusterOnly(s) {
				pairs = append(pairs, pair{s, algo})
			}
		}
	}
	runPairs(t, pairs, realTime)
}

// clusterOnly reports whether s runs on a Redis Cluster only (backend
// redis-cluster): real server processes, on the redis-server and Valkey
// catalogues.
func clusterOnly(s *scenarios.Scenario) bool {
	return sim.Backend(s.Backend) == sim.BackendRedisCluster
}

// timeMode is how a test runs its scenarios on miniredis.
type timeMode bool

const (
	virtualTime timeMode = false
	realTime    timeMode = true
)

// execute runs s for algo as the CLI would in mode, into a temp dir.
func execute(t *testing.T, s *scenarios.Scenario, algo string, mode timeMode) (run.Outcome, error) {
	ctx := context.Background()
	if mode == virtualTime {
		ctx = vtime.NewContext(ctx, vtime.ForTest(t))
	}
	return run.Execute(ctx, s, algo, run.Options{Out: t.TempDir(), RealTime: bool(mode)})
}

// wallClockTries bounds how often a wall-clock run that did not play its
// scenario is run again.
const wallClockTries = 3

// executePlayed runs s for algo; on the wall clock, a run that did not play
// the scenario (a requirement did not happen, a needed fault never acted:
// a loaded machine can starve the moment out) is run again, up to
// wallClockTries times in all. A run that played is never rerun, so a wrong
// verdict fails at once, and a scenario that is never played fails too. In
// virtual time the schedule does not depend on the machine, so one run says
// all.
func executePlayed(t *testing.T, s *scenarios.Scenario, algo string, mode timeMode) (run.Outcome, error) {
	for try := 1; ; try++ {
		o, err := execute(t, s, algo, mode)
		if err != nil || mode == virtualTime || len(o.Unplayed) == 0 || try == wallClockTries {
			return o, err
		}
		t.Logf("%s/%s: try %d of %d did not play the scenario (%v); running it again", s.Name, algo, try, wallClockTries, o.Unplayed)
	}
}

type pair struct {
	s    *scenarios.Scenario
	algo string
}

// runPairs runs each pair and checks its verdict against the expectation,
// and each outcome by the extra checks given.
// Runs are point-triggered, so parallel runs do not blur verdicts; they go
// as many at a time as locksim matrix runs them by default. The pairs run
// from goroutines rather than as parallel subtests, so that go test's
// -parallel (GOMAXPROCS, 2 here) does not lower it.
func runPairs(t *testing.T, pairs []pair, mode timeMode, checks ...func(*testing.T, run.Outcome)) {
	sem := make(chan struct{}, matrix.DefaultParallel())
	var mu sync.Mutex
	var mismatches []string
	var wg sync.WaitGroup
	for _, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(p.s.Name+"/"+p.algo, func(t *testing.T) {
				o, err := executePlayed(t, p.s, p.algo, mode)
				if err != nil {
					t.Fatalf("%s/%s: %v", p.s.Name, p.algo, err)
				}
				for _, check := range checks {
					check(t, o)
				}
				if !o.AsExpected {
					// a run that did not play the scenario (a needed
					// fault never acted, a requirement did not happen)
					// is a mismatch too (Outcome.AsExpected)
					msg := fmt.Sprintf("%s/%s: verdict %s %v, expected %s; not played: %v (report: %s)", p.s.Name, p.algo, o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
					mu.Lock()
					mismatches = append(mismatches, msg)
					mu.Unlock()
					t.Error(msg)
				}
			})
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		if len(mismatches) > 0 {
			t.Logf("%d pairs differ from their expectation:\n%s", len(mismatches), strings.Join(mismatches, "\n"))
		}
	})
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
