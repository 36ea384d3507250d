package report_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
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

var updateClusterPage = flag.Bool("update-cluster-page", false, "run the cluster scenarios on redis-server and valkey-server and rewrite "+clusterPage)

const clusterPage = "../../docs/cluster-servers.md"

// TestClusterServersPage keeps docs/cluster-servers.md, the verdicts of
// the Redis Cluster scenarios on Redis and on Valkey, to the catalogue:
// one line per cluster scenario and design it runs, each cell a verdict
// a run gave. `go test ./internal/report -run ClusterServersPage
// -update-cluster-page` runs every pair on both servers and rewrites it.
func TestClusterServersPage(t *testing.T) {
	if *updateClusterPage {
		simtest.RequireRedisServer(t)
		simtest.RequireValkey(t)
		page := clusterServersPage(t)
		require.NoError(t, os.WriteFile(clusterPage+".tmp", []byte(page), 0o644))
		require.NoError(t, os.Rename(clusterPage+".tmp", clusterPage))
		return
	}
	raw, err := os.ReadFile(clusterPage)
	require.NoError(t, err, "run go test ./internal/report -run ClusterServersPage -update-cluster-page")
	var want []string
	for _, p := range clusterPairs() {
		want = append(want, "| `"+p[0]+"` | `"+p[1]+"` |")
	}
	var got []string
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		if len(cells) != 5 {
			t.Errorf("%s: line %q does not have the scenario, design, expectation and two verdicts", clusterPage, line)
			continue
		}
		for _, v := range cells[3:] {
			if w := strings.Trim(strings.Fields(strings.Trim(v, "| "))[0], "*"); !slices.Contains([]string{"safe", "unsafe", "deadlock", "unknown"}, w) {
				t.Errorf("%s: line %q: %q is no verdict", clusterPage, line, v)
			}
		}
		got = append(got, strings.Join(cells[:2], " | ")+" |")
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s lists %q, the catalogue's cluster pairs are %q; run go test ./internal/report -run ClusterServersPage -update-cluster-page", clusterPage, got, want)
	}
}

// clusterPairs are the catalogue's Redis Cluster scenarios and the
// designs each runs, in catalogue order.
func clusterPairs() [][2]string {
	var out [][2]string
	for _, s := range scenarios.Builtin() {
		if s.Backend != "redis-cluster" {
			continue
		}
		for _, algo := range s.Algorithms() {
			out = append(out, [2]string{s.Name, algo})
		}
	}
	return out
}

// clusterServersPage runs every cluster pair on both servers and writes
// the page.
func clusterServersPage(t *testing.T) string {
	var b strings.Builder
	versions := map[string]string{}
	var rows []string
	for _, p := range clusterPairs() {
		var c [2]string
		expected := ""
		for i, server := range []string{"redis", "valkey"} {
			o, in := clusterRun(t, p[0], p[1], server)
			versions[server] = in.Setup.Server
			expected = o.Expected
			v := string(o.Verdict)
			switch {
			case o.Incomplete:
				v += " (incomplete)"
			case len(o.Unplayed) > 0:
				v += " (not played)"
			case !o.AsExpected:
				v = "**" + v + "** (differs)"
			}
			c[i] = v
		}
		rows = append(rows, fmt.Sprintf("| `%s` | `%s` | %s | %s | %s |", p[0], p[1], expected, c[0], c[1]))
	}
	fmt.Fprintf(&b, "# Redis Cluster on Redis and on Valkey\n\n")
	fmt.Fprintf(&b, "The catalogue's Redis Cluster scenarios (backend `redis-cluster`, 3 masters with a replica each), each design they run once on each server, by `go test ./internal/report -run ClusterServersPage -update-cluster-page`; each cell is the run's verdict. A verdict that differs from the scenario's expectation is bold and says so; a run that did not play its scenario says so.\n\n")
	fmt.Fprintf(&b, "| scenario | design | expected | %s | %s |\n|---|---|---|---|---|\n", versions["redis"], versions["valkey"])
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString(clusterReading)
	return b.String()
}

// clusterReading is the page's part on reading a cluster run's timeline.
const clusterReading = `
## Reading a cluster run's timeline

On a Redis Cluster each node row is one server process, as the harness
read it every 5 ms (never through a client): its label names the roles it
went through (master → replica), a teal band shades the time it served
the lock key's slot as its master, a paler one the slot migrating (its
owner answering ASK, the master importing it showing its copy only after
ASKING), grey the reads it did not answer. A failover's election, from the
kill or the CLUSTER FAILOVER command until the replica served the slot in
every node's view, is a bracket along the old master's and the winner's
rows with its measured length. A MOVED (triangle) or ASK (ring) reply a
client met is marked on its row. The replicas of other masters that were
never promoted share one row.

` + "`locksim run cluster-failover-lost-window --backend redis-cluster`" + `: node 2
owns the slot and is killed, its replication cut, right after it granted
client 0 the lock (here before the harness's next read of it); node 5 is
elected and serves the slot without the key, and client 1 gets the lock
while client 0 is still inside:

![cluster-failover-lost-window: node 2 killed right after its grant, node 5 elected and serving the slot without it, client 1 inside with client 0](../results/examples/cluster/lost-window-timeline.png)

` + "`locksim run cluster-reshard-while-held --backend redis-cluster`" + `: the
slot moves to another master under client 0's lock, the key whole with
its TTL; client 1 meets
ASK while it migrates and is refused throughout, client 0 meets MOVED on
its release:

![cluster-reshard-while-held: the key moves whole with its TTL; ASK and MOVED on the client rows](../results/examples/cluster/reshard-timeline.png)
`
