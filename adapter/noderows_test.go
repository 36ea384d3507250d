package adapter_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
)

// TestProcessDesignNodeRows: a process design reports no per-node
// replies, so its node rows come from the harness's reads of the nodes:
// node-redlock's run draws, on every node it used, the keys its clients'
// children set there.
func TestProcessDesignNodeRows(t *testing.T) {
	const algo = "node-redlock"
	requireDesign(t, algo)
	s, err := scenarios.Lookup("crash-holder")
	if err != nil {
		t.Fatal(err)
	}
	o := executePlayed(t, s, algo, "")
	f, err := os.Open(filepath.Join(o.Dir, report.FileHistory))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.RunConfig(algo, scenarios.Servers{})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range h.Ops {
		if op.Kind == history.KindAcquire && len(op.Granted) > 0 {
			t.Fatalf("%s reported per-node replies (%v): this test is about a design that does not", algo, op.Granted)
		}
	}
	for _, lane := range checker.Nodes(h, cfg.Cluster.Nodes) {
		owned := 0
		for _, hold := range lane.Holds {
			if hold.Observed && hold.Client >= 0 {
				owned++
			}
		}
		if !lane.Observed || owned == 0 {
			t.Errorf("node %d: read %v, %d holds of a client read off it; want every node read and holding its clients' keys", lane.Node, lane.Observed, owned)
		}
	}
	rows := report.NodeRows(h, run.Setup(cfg))
	if len(rows) != cfg.Cluster.Nodes {
		t.Fatalf("%d node rows, want one per node (%d): %+v", len(rows), cfg.Cluster.Nodes, rows)
	}
	for _, r := range rows {
		if r.Holds == 0 {
			t.Errorf("row %q draws no hold (empty: %q)", r.Label, r.Empty)
		}
	}
}
