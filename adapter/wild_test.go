package adapter_test

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// TestWildCorpus replays every reported bug of scenarios/wild on every
// design it names (a pinned version, a bundled process design, or one of
// locksim's own designs beside its variant), on miniredis and on
// redis-server: the buggy version or form shows the verdict its report
// describes and the fixed one the verdict its scenario argues. The
// adapters are built once into the user cache (the first run downloads
// the pinned modules); without the go command the test skips, or fails
// under LOCKSIM_REQUIRE_REDIS=1.
func TestWildCorpus(t *testing.T) {
	corpus, err := scenarios.Wild()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range corpus {
		if len(s.Require) == 0 {
			t.Errorf("%s: no require: the dangerous moment must be checked", s.Name)
		}
		for _, algo := range s.Algorithm {
			if _, err := lock.Lookup(algo); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
			if _, own := s.Expectations[algo]; !own {
				t.Errorf("%s: no expectation of %s", s.Name, algo)
			}
		}
	}
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		for _, s := range corpus {
			for _, algo := range s.Algorithm {
				t.Run(s.Name+"/"+algo, func(t *testing.T) {
					// Each run starts its own nodes and children and waits
					// on the clock more than it computes: -parallel runs at
					// once (the corpus was checked at 10 runs at a time).
					t.Parallel()
					if s.Backend != "" && s.Backend != string(b) {
						t.Skipf("%s names its backend, %s", s.Name, s.Backend)
					}
					requireDesign(t, algo)
					o := executePlayed(t, s, algo, string(b))
					if !o.AsExpected {
						t.Errorf("verdict %s %v, expected %s; not played: %v (report %s)", o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
					}
				})
			}
		}
	})
}

// TestPinnedVersions: every pinned version resolves as a process design
// that behaves like its library's reference (redsync, redlock, redislock), and an
// unknown version is one line listing the pinned ones.
func TestPinnedVersions(t *testing.T) {
	like := map[string]string{"redsync": "redsync", "node-redlock": "redlock", "rueidislock": "setpx",
		"redis-semaphore": "setpx", "redis-semaphore-redlock": "redlock", "sesame-redlock": "redlock",
		"redislock": "redislock"}
	for _, n := range lock.PinnedNames() {
		i, err := lock.Lookup(n)
		lib, _, _ := strings.Cut(n, "@")
		if err != nil || i.Name != n || !i.Process || i.Like != like[lib] {
			t.Errorf("%s: %+v, %v", n, i, err)
		}
	}
	_, err := lock.Lookup("redsync@v9.9.9")
	if err == nil || !strings.Contains(err.Error(), "v4.12.1") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unknown version: %v", err)
	}
}
