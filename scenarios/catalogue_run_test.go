package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, simtest.LeakOptions()...) }

// catalogueEnv set to "full" runs every pair even under -short or -race.
const catalogueEnv = "LOCKSIM_CATALOGUE"

// shortSubset are the designs the short catalogue runs: one of each family.
var shortSubset = map[string]bool{"naive": true, "setnx-expire": true, "setpx": true, "redlock": true, "fenced": true}

// raceSmoke are the pairs run under the race detector: it slows every run
// several times over and stretches timing-sensitive scenarios, so CI runs
// the whole catalogue in a step of its own without -race.
var raceSmoke = map[string]bool{"gc-pause-after-check/setpx": true, "gc-pause-after-check/fenced": true, "crash-holder/setpx": true, "crash-between-setnx-expire/setnx-expire": true}

// TestCatalogue runs every built-in scenario for every design it applies to
// and compares the verdict with the scenario's expectation. The expectations
// are claims; this is where they are checked, on every run of the suite.
func TestCatalogue(t *testing.T) {
	full := os.Getenv(catalogueEnv) == "full" || (!testing.Short() && !raceEnabled)
	if !full {
		t.Logf("short catalogue (designs %v); %s=full runs every pair", keys(shortSubset), catalogueEnv)
	}
	var pairs []pair
	for _, s := range scenarios.Builtin() {
		for _, algo := range s.Algorithms() {
			if !full && !shortSubset[algo] {
				continue
			}
			if !full && raceEnabled && !raceSmoke[s.Name+"/"+algo] {
				continue
			}
			pairs = append(pairs, pair{s, algo})
		}
	}
	runPairs(t, pairs)
}

// TestCatalogueOnRedisServer runs the scenarios on real redis-server nodes,
// so the verdicts do not hinge on miniredis: every pair in the full suite
// (CI's catalogue step), one design of each family otherwise.
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
		s.Backend = string(sim.BackendRedis)
		for _, algo := range s.Algorithms() {
			if full || algo == "setpx" || algo == "redlock" {
				pairs = append(pairs, pair{s, algo})
			}
		}
	}
	runPairs(t, pairs)
}

type pair struct {
	s    *scenarios.Scenario
	algo string
}

// runPairs runs each pair and checks its verdict against the expectation.
// Runs are point-triggered, so parallel runs do not blur verdicts; they go
// as many at a time as locksim matrix runs them by default. The pairs run
// from goroutines rather than as parallel subtests, so that go test's
// -parallel (GOMAXPROCS, 2 here) does not lower it.
func runPairs(t *testing.T, pairs []pair) {
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
				o, err := scenarios.Execute(context.Background(), p.s, p.algo, scenarios.RunOptions{Out: t.TempDir()})
				if err != nil {
					t.Fatalf("%s/%s: %v", p.s.Name, p.algo, err)
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
