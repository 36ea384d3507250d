package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	irun "github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// clusterRun runs scenario name for algo on a real Redis Cluster of server
// (redis or valkey) and reads back what the report draws from.
func clusterRun(t *testing.T, name, algo, server string) (irun.Outcome, report.Run) {
	t.Helper()
	s, err := scenarios.Lookup(name)
	require.NoError(t, err)
	require.NoError(t, s.Override(scenarios.Overrides{Server: server}))
	o, err := irun.Execute(context.Background(), s, algo, irun.Options{Out: t.TempDir(),
		Pictures: func(irun.Outcome) report.Pictures { return report.NoPictures }})
	require.NoError(t, err, "%s/%s on %s", name, algo, server)
	if o.Skipped != "" {
		return o, report.Run{}
	}
	v, err := report.ReadVerdict(filepath.Join(o.Dir, report.FileVerdict))
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(o.Dir, report.FileHistory))
	require.NoError(t, err)
	h, err := history.ReadJSONL(bytes.NewReader(raw))
	require.NoError(t, err)
	return o, report.Run{Scenario: name, Algorithm: algo, Setup: v.Config, History: h,
		Check: checker.Check(h, checker.Config{Verbose: true})}
}

// TestClusterTimelinesRowsAndLabels runs the cluster scenarios whose
// picture carries the cluster's marks (a failover, a reshard, a manual
// failover) on redis-server and checks their timelines: every node that
// was ever a master has a row, labelled with its roles; no row says a
// single-node design leaves it unused (on a cluster every server serves
// slots); the election and the redirects the history holds are drawn
// and in the legend; and, as over the catalogue, no label meets another
// or is crossed by a reference line.
func TestClusterTimelinesRowsAndLabels(t *testing.T) {
	simtest.RequireRedisServer(t)
	for _, c := range []struct {
		scenario string
		election bool // a failover with its election measured
		redirect string
		// importing: the slot's new master showed the key a migration
		// gave it before it served the slot
		importing bool
	}{
		{"cluster-failover-lost-window", true, "", false},
		{"cluster-reshard-while-held", false, "ASK", true},
		{"cluster-manual-failover", true, "", false},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			t.Parallel() // each on its own cluster, ports and proxies
			_, in := clusterRun(t, c.scenario, "setpx", "redis")
			_, roles := checker.ClusterRoles(in.History, len(checker.ObservedNodes(in.History, in.Setup.Nodes)))
			require.NotNil(t, roles, "the observer recorded no roles")
			rows := report.NodeRows(in.History, in.Setup)
			for node, rs := range roles {
				if !slices.ContainsFunc(rs, func(r checker.NodeRole) bool { return r.Role == history.RoleMaster }) {
					continue
				}
				i := slices.IndexFunc(rows, func(r report.NodeRow) bool { return slices.Equal(r.Nodes, []int{node}) })
				if i < 0 {
					t.Errorf("node %d was a master but has no row of its own: %+v", node, rows)
					continue
				}
				if !strings.Contains(rows[i].Label, history.RoleMaster) {
					t.Errorf("node %d's row label %q does not name its role", node, rows[i].Label)
				}
			}
			for _, r := range rows {
				if strings.Contains(r.Empty, "single-node") {
					t.Errorf("row %q says %q: on a cluster every server serves slots", r.Label, r.Empty)
				}
			}
			legend, err := report.TimelineLegend(in)
			require.NoError(t, err)
			hasLegend := func(prefix string) bool {
				return slices.ContainsFunc(legend, func(l string) bool { return strings.HasPrefix(l, prefix) })
			}
			redirects := map[string]bool{}
			for _, op := range in.History.Ops {
				if op.Kind == history.KindRedirect {
					redirects[op.Event] = true
				}
			}
			if c.redirect != "" {
				require.True(t, redirects[c.redirect], "the run met no %s redirect", c.redirect)
			}
			if c.importing {
				assert.True(t, slices.ContainsFunc(in.History.Ops, func(op history.Op) bool {
					return op.Kind == history.KindNode && op.Event == history.RedirectImporting && op.Outcome == history.OK
				}), "no node record shows the importing master's copy of the key")
			}
			for _, ev := range []string{"MOVED", "ASK"} {
				if got := hasLegend(ev + " reply"); got != redirects[ev] {
					t.Errorf("legend has %s: %v, history has one: %v (legend %q)", ev, got, redirects[ev], legend)
				}
			}
			if got := hasLegend("cluster failover: election"); got != c.election {
				t.Errorf("legend has the election: %v, want %v (legend %q)", got, c.election, legend)
			}
			if !hasLegend("cluster: the master serving") {
				t.Errorf("legend names no slot owner: %q", legend)
			}
			panels, err := report.TimelineLayout(in)
			require.NoError(t, err)
			elections := 0
			for pi, p := range panels {
				for i, a := range p.Labels {
					if strings.HasPrefix(a.Text, "election ") {
						elections++
					}
					for _, b := range p.Labels[i+1:] {
						if a.MinX < b.MaxX && b.MinX < a.MaxX && a.MinY < b.MaxY && b.MinY < a.MaxY {
							t.Errorf("panel %d: label %q %v meets label %q %v", pi, a.Text, a, b.Text, b)
						}
					}
					for _, l := range p.Lines {
						if lineThroughBox(l, a) {
							t.Errorf("panel %d: line %v passes through label %q %v", pi, l, a.Text, a)
						}
					}
				}
			}
			if c.election && elections == 0 {
				t.Errorf("no election label drawn")
			}
		})
	}
}
