package scenarios_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// TestEveryNodeKeyHasItsRow runs the catalogue (one design of each
// family, in virtual time) and lays out each run's node rows as the
// timeline draws them: every node on which the harness read a lock key
// has a row that draws holds, and every row that draws nothing says why.
func TestEveryNodeKeyHasItsRow(t *testing.T) {
	sem := make(chan struct{}, matrix.DefaultParallel())
	var wg sync.WaitGroup
	for _, s := range scenarios.Builtin() {
		if clusterOnly(s) {
			continue // real server processes: no run in virtual time
		}
		for _, algo := range s.Algorithms() {
			if !shortSubset[algo] {
				continue
			}
			if exp, ok := s.Expect(algo); ok && exp.Verdict == vocab.Skip {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				t.Run(s.Name+"/"+algo, func(t *testing.T) {
					h, cfg := runVirtual(t, s, algo)
					checkNodeRows(t, h, cfg)
				})
			}()
		}
	}
	wg.Wait()
}

// runVirtual runs s for algo in virtual time and returns its history.
func runVirtual(t *testing.T, s *scenarios.Scenario, algo string) (history.History, sim.Config) {
	t.Helper()
	cfg, err := s.RunConfig(algo, scenarios.Servers{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.VirtualTime = true
	spec, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(vtime.NewContext(context.Background(), vtime.ForTest(t)), spec)
	if err != nil {
		t.Fatal(err)
	}
	return res.History, res.Config
}

// checkNodeRows asserts that each node on which a node record saw the key
// has a row drawing holds, and that each row drawing nothing says why.
func checkNodeRows(t *testing.T, h history.History, cfg sim.Config) {
	t.Helper()
	keyOn := map[int]bool{}
	for _, op := range h.Ops {
		if op.Kind == history.KindNode && op.Outcome == history.OK {
			keyOn[op.Node] = true
		}
	}
	rows := report.NodeRows(h, run.Setup(cfg))
	drawn := map[int]bool{}
	for _, r := range rows {
		if r.Content() != (r.Empty == "") {
			t.Errorf("row %q: content %v, empty line %q: a row draws something or says why not", r.Label, r.Content(), r.Empty)
		}
		if r.Holds > 0 {
			for _, n := range r.Nodes {
				drawn[n] = true
			}
		}
	}
	for n := range keyOn {
		if !drawn[n] {
			t.Errorf("node %d held a lock key, but no row draws it (rows: %s)", n, fmt.Sprint(rows))
		}
	}
	if len(keyOn) == 0 && len(rows) == 0 {
		t.Errorf("no node rows at all")
	}
}
