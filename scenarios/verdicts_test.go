package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// TestVerdictRegressions runs the scenarios under testdata/verdicts: cases
// whose verdict hangs on a fine point of the checker's rules (client
// clocks moving after the acquire, nested holds after a lapse, crashes
// with messages in flight, runs that tested nothing, fenced overlaps),
// each with variants of other numbers. Each file states its expectation; files named unplayed-* must
// come out not played. They run on miniredis in virtual time on every run
// of the suite; in real time on miniredis and on redis-server in the full
// suite (CI's catalogue step), not under the race detector, which stretches
// their timing.
func TestVerdictRegressions(t *testing.T) {
	runVerdictFiles(t, "", virtualTime)
}

func TestVerdictRegressionsInRealTime(t *testing.T) {
	if os.Getenv(catalogueEnv) != "full" {
		t.Skipf("wall-clock timing: runs in CI's catalogue step (%s=full)", catalogueEnv)
	}
	runVerdictFiles(t, "", realTime)
}

func TestVerdictRegressionsOnRedisServer(t *testing.T) {
	full := os.Getenv(catalogueEnv) == "full"
	switch {
	case raceEnabled && !full:
		t.Skipf("timing-sensitive under -race; CI runs it in its catalogue step without -race (%s=full forces it)", catalogueEnv)
	case testing.Short() && !full:
		t.Skipf("-short: the redis-server regressions run in the full suite (%s=full forces it)", catalogueEnv)
	}
	simtest.RequireRedisServer(t)
	runVerdictFiles(t, sim.BackendRedis, realTime)
}

func runVerdictFiles(t *testing.T, backend sim.Backend, mode timeMode) {
	files, err := filepath.Glob("testdata/verdicts/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression scenarios: %v", err)
	}
	sem := make(chan struct{}, matrix.DefaultParallel())
	var wg sync.WaitGroup
	for _, file := range files {
		s, err := scenarios.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if backend != "" {
			s.Backend = string(backend)
		}
		unplayed := strings.HasPrefix(filepath.Base(file), "unplayed-")
		for _, algo := range s.Algorithms() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				t.Run(s.Name+"/"+algo, func(t *testing.T) {
					run := executePlayed
					if unplayed {
						run = execute // not playing is the claim
					}
					o, err := run(t, s, algo, mode)
					if err != nil {
						t.Fatalf("%v", err)
					}
					switch {
					case unplayed && (len(o.Unplayed) == 0 || o.AsExpected):
						t.Errorf("verdict %s %v, unplayed %v: want not played (report: %s)", o.Verdict, o.Checks, o.Unplayed, o.Dir)
					case !unplayed && !o.AsExpected:
						t.Errorf("verdict %s %v, expected %s; not played: %v (report: %s)", o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
					}
				})
			}()
		}
	}
	wg.Wait()
}
