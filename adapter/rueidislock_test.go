package adapter_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/adapter"
	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// TestRueidislockExtensionsKeepTheLease: rueidislock's child reports the
// extensions its library makes on its own timers, so on
// watchdog-long-hold-no-watchdog (client 0 holds three TTLs while client
// 1 asks) the history has client 0's extends, its lease lasts while the
// library kept the key, and the liveness check does not call client 1
// starved. On redis-server (the library needs CLIENT TRACKING), once per
// pinned version.
func TestRueidislockExtensionsKeepTheLease(t *testing.T) {
	simtest.RequireRedisServer(t)
	s, err := scenarios.Lookup("watchdog-long-hold-no-watchdog")
	if err != nil {
		t.Fatal(err)
	}
	on := *s
	on.Backend = string(sim.BackendRedis)
	for _, v := range adapter.RueidislockVersions {
		algo := "rueidislock@" + v
		t.Run(algo, func(t *testing.T) {
			requireDesign(t, algo)
			o, err := run.Execute(context.Background(), &on, algo, run.Options{Out: t.TempDir(), RealTime: true,
				Pictures: func(run.Outcome) report.Pictures { return report.NoPictures }})
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(o.Dir, "history.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := history.ReadJSONL(f)
			if err != nil {
				t.Fatal(err)
			}
			var first *history.Op
			extends := 0
			for i, op := range h.Ops {
				switch {
				case op.Client == 0 && op.Kind == history.KindAcquire && op.Outcome == history.OK && first == nil:
					first = &h.Ops[i]
				case op.Client == 0 && op.Kind == history.KindExtend && first != nil && op.Token == first.Token && op.Outcome == history.OK:
					extends++
				}
			}
			if first == nil {
				t.Fatalf("client 0 never acquired (report %s)", o.Dir)
			}
			// a 1.5 s hold, extended every 250 ms
			if extends < 3 {
				t.Errorf("%d extends of client 0's lease recorded, want the library's, at least 3 (report %s)", extends, o.Dir)
			}
			if st := checker.Starved(h, checker.Read(h)); len(st) > 0 || o.Checks["liveness"] != vocab.Safe {
				t.Errorf("liveness %s, starved %v: the key was held by the library's extensions (report %s)", o.Checks["liveness"], st, o.Dir)
			}
		})
	}
}
