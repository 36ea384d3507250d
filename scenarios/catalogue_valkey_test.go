package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// valkeyShapes are one pair of each shape the server backends start: a
// single master, a master and its replica failed over by three
// sentinels, Redlock's five independent masters, and a Redis Cluster.
var valkeyShapes = map[string]string{
	"gc-pause-after-check":       "setpx",
	"failover-async-replication": "setpx",
	"redlock-restart-no-fsync":   "redlock",
	// a Redis Cluster's election after a master's death
	"cluster-failover-lost-window": "setpx",
}

// TestCatalogueOnValkey runs the catalogue on the redis backend with
// --server valkey: valkey-server nodes and valkey-sentinel processes in
// place of Redis's, under the same expectations, so that a verdict that
// differs between the two servers fails here. In the full suite (CI's
// catalogue step) every scenario, with the design docs/servers.md runs it
// with (Scenario.FirstAsserted), every design of a Redis Cluster scenario
// and one pair of each shape; that shape sample alone otherwise. Each run's
// verdict.json must name Valkey as its server.
func TestCatalogueOnValkey(t *testing.T) {
	full := os.Getenv(catalogueEnv) == "full"
	switch {
	case raceEnabled && !full:
		t.Skipf("timing-sensitive under -race; CI runs it in its catalogue step without -race (%s=full forces it)", catalogueEnv)
	case testing.Short() && !full:
		t.Skipf("-short: the Valkey catalogue runs in the full suite (%s=full forces it)", catalogueEnv)
	}
	simtest.RequireValkey(t)
	var pairs []pair
	shapes := map[string]bool{}
	for _, s := range scenarios.Builtin() {
		if !clusterOnly(s) {
			s.Backend = string(sim.BackendRedis)
		}
		s.Server = string(sim.ServerValkey)
		first, _ := s.FirstAsserted()
		for _, algo := range s.Algorithms() {
			if valkeyShapes[s.Name] == algo || full && (algo == first || clusterOnly(s)) {
				pairs = append(pairs, pair{s, algo})
				shapes[s.Name] = true
			}
		}
	}
	for name := range valkeyShapes {
		if !shapes[name] {
			t.Fatalf("scenario %s is not in the catalogue: valkeyShapes must name one of each cluster shape", name)
		}
	}
	runPairs(t, pairs, realTime, func(t *testing.T, o run.Outcome) {
		if o.Dir == "" {
			return // skipped by expectation
		}
		v, err := report.ReadVerdict(filepath.Join(o.Dir, "verdict.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v.Config.Server, "valkey ") {
			t.Errorf("%s/%s: verdict.json names server %q, want valkey and its version", o.Scenario, o.Algorithm, v.Config.Server)
		}
	})
}
