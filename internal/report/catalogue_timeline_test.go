package report_test

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/lock"
	irun "github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// busiestRuns is how many of the catalogue's runs the label test draws.
const busiestRuns = 10

// shortDesigns are the designs -short runs the catalogue with: one of
// each family.
var shortDesigns = map[string]bool{"naive": true, "setnx-expire": true, "setpx": true, "redlock": true, "fenced": true}

// TestCatalogueTimelinesNodeRowsAndLabels runs the catalogue in virtual
// time, checks that every node that held a key has its row, draws the timelines of the runs with the most operations (the
// most crowded pictures: the busiest run of each scenario, busiest
// scenarios first) and checks that no label's box meets another's
// and no reference line (a row's rule, an instant, a tie line, a frame's
// side, a failover event) passes through a label.
func TestCatalogueTimelinesNodeRowsAndLabels(t *testing.T) {
	type run struct {
		name string
		in   report.Run
		ops  int
	}
	var (
		mu   sync.Mutex
		runs []run
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, 2)
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	for _, s := range scenarios.Builtin() {
		if s.Backend == "redis-cluster" {
			continue // server processes on the wall clock, not virtual time
		}
		for _, algo := range s.Algorithms() {
			if info, err := lock.Lookup(algo); err != nil || info.Process || (testing.Short() && !shortDesigns[algo]) {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				o, err := irun.Execute(ctx, s, algo, irun.Options{Out: t.TempDir(),
					Pictures: func(irun.Outcome) report.Pictures { return report.NoPictures }})
				if err != nil {
					t.Errorf("%s/%s: %v", s.Name, algo, err)
					return
				}
				if o.Skipped != "" {
					return
				}
				raw, err := os.ReadFile(filepath.Join(o.Dir, report.FileHistory))
				if err != nil {
					t.Errorf("%s/%s: %v", s.Name, algo, err)
					return
				}
				h, err := history.ReadJSONL(bytes.NewReader(raw))
				if err != nil {
					t.Errorf("%s/%s: %v", s.Name, algo, err)
					return
				}
				cfg, err := s.RunConfig(algo, scenarios.Servers{})
				if err != nil {
					t.Errorf("%s/%s: %v", s.Name, algo, err)
					return
				}
				spec, err := cfg.Resolve()
				if err != nil {
					t.Errorf("%s/%s: %v", s.Name, algo, err)
					return
				}
				in := report.Run{Scenario: s.Name, Algorithm: algo, Setup: irun.Setup(spec.Config()), History: h,
					Check: checker.Check(h, checker.Config{Fencing: cfg.Fencing(), Verbose: true})}
				mu.Lock()
				runs = append(runs, run{s.Name + "/" + algo, in, len(h.Ops)})
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	require.NotEmpty(t, runs)
	slices.SortFunc(runs, func(a, b run) int { return cmp.Or(cmp.Compare(b.ops, a.ops), cmp.Compare(a.name, b.name)) })

	// Every node that held a key (checker.Nodes) has its row.
	for _, r := range runs {
		rows, err := report.TimelineNodeRows(r.in)
		require.NoError(t, err, r.name)
		for _, n := range checker.Nodes(r.in.History, r.in.Setup.Nodes) {
			if len(n.Holds) > 0 && !slices.Contains(rows, n.Node) {
				t.Errorf("%s: node %d held the key (%d holds) but has no row (rows %v)", r.name, n.Node, len(n.Holds), rows)
			}
		}
	}

	// the busiest run of each scenario, then the busiest scenarios: ten
	// different pictures rather than one scenario's under ten designs
	seen := map[string]bool{}
	runs = slices.DeleteFunc(runs, func(r run) bool {
		dup := seen[r.in.Scenario]
		seen[r.in.Scenario] = true
		return dup
	})
	runs = runs[:min(busiestRuns, len(runs))]
	for _, r := range runs {
		panels, err := report.TimelineLayout(r.in)
		require.NoError(t, err, r.name)
		labels := 0
		for pi, p := range panels {
			labels += len(p.Labels)
			for i, a := range p.Labels {
				for _, b := range p.Labels[i+1:] {
					if a.MinX < b.MaxX && b.MinX < a.MaxX && a.MinY < b.MaxY && b.MinY < a.MaxY {
						t.Errorf("%s (%d ops), panel %d: label %q %v meets label %q %v", r.name, r.ops, pi, a.Text, a, b.Text, b)
					}
				}
				for _, l := range p.Lines {
					if lineThroughBox(l, a) {
						t.Errorf("%s (%d ops), panel %d: line %v passes through label %q %v", r.name, r.ops, pi, l, a.Text, a)
					}
				}
			}
		}
		require.Positive(t, labels, "%s: the timeline has labels to check", r.name)
		t.Logf("%s: %d ops, %d labels", r.name, r.ops, labels)
	}
}

// lineThroughBox reports whether the horizontal or vertical line l passes
// through the inside of the label's box (running along its edge does not).
func lineThroughBox(l report.LaidOutLine, b report.LaidOutLabel) bool {
	x0, x1 := min(l.X0, l.X1), max(l.X0, l.X1)
	y0, y1 := min(l.Y0, l.Y1), max(l.Y0, l.Y1)
	switch {
	case x0 == x1:
		return b.MinX < x0 && x0 < b.MaxX && y0 < b.MaxY && b.MinY < y1
	case y0 == y1:
		return b.MinY < y0 && y0 < b.MaxY && x0 < b.MaxX && b.MinX < x1
	}
	return x0 < b.MaxX && b.MinX < x1 && y0 < b.MaxY && b.MinY < y1
}
