package report_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/report"
	irun "github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

var updateServersPage = flag.Bool("update-servers-page", false, "run every catalogue scenario on redis-server and on valkey-server and rewrite "+serversPage)

const (
	serversPage = "../../docs/servers.md"
	// serversParallel is how many runs the page's generation runs at once.
	serversParallel = 2
	// serversReruns is how often a row whose servers disagree, or whose
	// run did not play, is run again on each server.
	serversReruns = 3
)

// servers are the two servers the page compares, in column order.
var servers = []string{string(sim.ServerRedis), string(sim.ServerValkey)}

// serverRow is one line of the page: a scenario and the design it runs.
type serverRow struct {
	scenario, algo string
	cluster        bool // backend redis-cluster; otherwise the redis backend
}

// serverRows are the page's lines, in catalogue order: for a scenario on a
// Redis Cluster every design it runs; for every other scenario, run on the
// redis backend, its first design (in its own order) whose expectation is
// a verdict (neither skip nor any). A scenario that expects no verdict of
// any design is an error.
func serverRows() ([]serverRow, error) {
	var out []serverRow
	for _, s := range scenarios.Builtin() {
		if sim.Backend(s.Backend) == sim.BackendRedisCluster {
			for _, algo := range s.Algorithms() {
				out = append(out, serverRow{s.Name, algo, true})
			}
			continue
		}
		s.Backend = string(sim.BackendRedis)
		algo, ok := s.FirstAsserted()
		if !ok {
			return nil, fmt.Errorf("scenario %s expects a verdict of none of its designs %v", s.Name, s.Algorithms())
		}
		out = append(out, serverRow{s.Name, algo, false})
	}
	return out, nil
}

// serverResult is one run of a row on one server.
type serverResult struct {
	outcome irun.Outcome
	version string // the server and its version, as the run read it
}

// played reports whether the run ran, completed and played its scenario.
func (r serverResult) played() bool {
	return r.outcome.Skipped == "" && !r.outcome.Incomplete && len(r.outcome.Unplayed) == 0
}

// cell is the run's verdict as the page shows it.
func (r serverResult) cell() string {
	o := r.outcome
	v := string(o.Verdict)
	switch {
	case o.Skipped != "":
		v = "did not run (" + o.Skipped + ")"
	case o.Incomplete:
		v += " (incomplete)"
	case len(o.Unplayed) > 0:
		v += " (not played)"
	case !o.AsExpected:
		v = "**" + v + "** (differs)"
	}
	return v
}

// serverRun runs row r once on server (redis or valkey).
func serverRun(r serverRow, server string) (serverResult, error) {
	s, err := scenarios.Lookup(r.scenario)
	if err != nil {
		return serverResult{}, err
	}
	o := scenarios.Overrides{Server: server}
	if !r.cluster {
		o.Backend = string(sim.BackendRedis)
	}
	if err := s.Override(o); err != nil {
		return serverResult{}, err
	}
	dir, err := os.MkdirTemp("", "locksim-servers-")
	if err != nil {
		return serverResult{}, err
	}
	defer os.RemoveAll(dir)
	out, err := irun.Execute(context.Background(), s, r.algo, irun.Options{Out: dir,
		Pictures: func(irun.Outcome) report.Pictures { return report.NoPictures }})
	if err != nil {
		return serverResult{}, fmt.Errorf("%s/%s on %s: %w", r.scenario, r.algo, server, err)
	}
	res := serverResult{outcome: out}
	if out.Skipped == "" {
		v, err := report.ReadVerdict(filepath.Join(out.Dir, report.FileVerdict))
		if err != nil {
			return serverResult{}, err
		}
		res.version = v.Config.Server
	}
	return res, nil
}

// serverJob is one run the generation makes: row, server and try.
type serverJob struct {
	row, server, try int
}

// runServerJobs runs jobs, serversParallel at a time, and returns each
// job's result by job.
func runServerJobs(rows []serverRow, jobs []serverJob) (map[serverJob]serverResult, error) {
	sem := make(chan struct{}, serversParallel)
	var mu sync.Mutex
	out := map[serverJob]serverResult{}
	var errs []error
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := serverRun(rows[j.row], servers[j.server])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out[j] = res
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// TestServersPage keeps docs/servers.md, every catalogue scenario's verdict
// on Redis and on Valkey, to the catalogue: one line per row of serverRows,
// each verdict cell a verdict, and the columns naming each server's
// version. `go test ./internal/report -run ServersPage
// -update-servers-page` runs every row once on each server, any row that
// differs between them or did not play serversReruns times more on each,
// and rewrites it.
func TestServersPage(t *testing.T) {
	rows, err := serverRows()
	require.NoError(t, err)
	if *updateServersPage {
		simtest.RequireRedisServer(t)
		simtest.RequireValkey(t)
		start := time.Now()
		page, err := serversPageText(rows)
		require.NoError(t, err)
		t.Logf("%d rows on %d servers in %s", len(rows), len(servers), time.Since(start).Round(100*time.Millisecond))
		require.NoError(t, os.WriteFile(serversPage+".tmp", []byte(page), 0o644))
		require.NoError(t, os.Rename(serversPage+".tmp", serversPage))
		return
	}
	raw, err := os.ReadFile(serversPage)
	require.NoError(t, err, "run go test ./internal/report -run ServersPage -update-servers-page")
	problems := checkServersPage(string(raw), rows)
	for _, p := range problems {
		t.Errorf("%s: %s", serversPage, p)
	}
	if len(problems) > 0 {
		t.Log("run go test ./internal/report -run ServersPage -update-servers-page")
	}
}

// checkServersPage returns what is wrong with page against rows.
func checkServersPage(page string, rows []serverRow) []string {
	var problems []string
	if !strings.Contains(page, "| scenario | design | expected | redis 7.") || !strings.Contains(page, " | valkey 8.") {
		problems = append(problems, "the table's header does not name redis 7.x and valkey 8.x")
	}
	var want, got []string
	for _, r := range rows {
		want = append(want, "| `"+r.scenario+"` | `"+r.algo+"` |")
	}
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 {
			problems = append(problems, fmt.Sprintf("line %q does not have the scenario, design, expectation and two verdicts", line))
			continue
		}
		for _, v := range cells[3:] {
			if w := strings.Trim(strings.Fields(v + " ")[0], "*"); !slices.Contains([]string{"safe", "unsafe", "deadlock", "unknown"}, w) {
				problems = append(problems, fmt.Sprintf("line %q: %q is no verdict", line, v))
			}
		}
		got = append(got, "| "+strings.Join(cells[:2], " | ")+" |")
	}
	if !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("lists %q, the catalogue's rows are %q", got, want))
	}
	return problems
}

// TestCheckServersPageCatchesMistakes: the check refuses a page that misses
// a scenario, has a cell that is no verdict, or whose header names no
// version.
func TestCheckServersPageCatchesMistakes(t *testing.T) {
	rows := []serverRow{{"a", "setpx", false}, {"b", "redlock", true}}
	head := "| scenario | design | expected | redis 7.0.15 | valkey 8.0.1 |\n|---|---|---|---|---|\n"
	good := head + "| `a` | `setpx` | safe | safe | safe |\n| `b` | `redlock` | unsafe | unsafe (not played) | **safe** (differs) |\n"
	require.Empty(t, checkServersPage(good, rows))
	for name, page := range map[string]string{
		"missing row": head + "| `a` | `setpx` | safe | safe | safe |\n",
		"no verdict":  strings.Replace(good, "| safe | safe |", "| safe | did not run (x) |", 1),
		"no version":  strings.Replace(good, "redis 7.0.15", "redis", 1),
		"a cell less": strings.Replace(good, "| safe | safe |\n", "| safe |\n", 1),
	} {
		require.NotEmpty(t, checkServersPage(page, rows), name)
	}
}

// serversPageText runs every row once on each server, reruns the rows
// that are findings, and writes the page.
func serversPageText(rows []serverRow) (string, error) {
	var jobs []serverJob
	for i := range rows {
		for s := range servers {
			jobs = append(jobs, serverJob{i, s, 0})
		}
	}
	results, err := runServerJobs(rows, jobs)
	if err != nil {
		return "", err
	}
	versions := map[int]string{}
	var findings []int
	for i := range rows {
		a, b := results[serverJob{i, 0, 0}], results[serverJob{i, 1, 0}]
		for s := range servers {
			if v := results[serverJob{i, s, 0}].version; v != "" {
				versions[s] = v
			}
		}
		if !a.played() || !b.played() || a.outcome.Verdict != b.outcome.Verdict {
			findings = append(findings, i)
		}
	}
	jobs = nil
	for _, i := range findings {
		for s := range servers {
			for try := 1; try <= serversReruns; try++ {
				jobs = append(jobs, serverJob{i, s, try})
			}
		}
	}
	reruns, err := runServerJobs(rows, jobs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Every scenario on Redis and on Valkey\n\n")
	b.WriteString("Every catalogue scenario run once on each server, by `go test ./internal/report -run ServersPage -update-servers-page`; each cell is the run's verdict. ")
	b.WriteString("A scenario on a Redis Cluster (backend `redis-cluster`, 3 masters with a replica each) has a row for each design it runs. ")
	b.WriteString("Every other scenario runs on the `redis` backend (`--backend redis`, with `--server valkey` for Valkey: the servers, sentinels included, are that server's processes) ")
	b.WriteString("for one design: the first of its designs, in the scenario's own order, whose expectation is a verdict rather than skip or any. ")
	b.WriteString("A verdict that differs from the scenario's expectation is bold and says so; a run that did not play its scenario says so. ")
	fmt.Fprintf(&b, "A row whose two runs give different verdicts, or where a run did not play, is a finding: it is run %d times more on each server, and the findings below give those runs.\n\n", serversReruns)
	fmt.Fprintf(&b, "| scenario | design | expected | %s | %s |\n|---|---|---|---|---|\n", versions[0], versions[1])
	for i, r := range rows {
		first := results[serverJob{i, 0, 0}]
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", r.scenario, r.algo, first.outcome.Expected, first.cell(), results[serverJob{i, 1, 0}].cell())
	}
	b.WriteString("\n## Findings\n\n")
	if len(findings) == 0 {
		b.WriteString("None: on every row both servers played the scenario and gave the same verdict.\n")
	}
	for _, i := range findings {
		r := rows[i]
		fmt.Fprintf(&b, "`%s` with `%s` (expected %s):", r.scenario, r.algo, results[serverJob{i, 0, 0}].outcome.Expected)
		var playedOn [2][]string
		for s := range servers {
			var cells []string
			for try := 0; try <= serversReruns; try++ {
				res := results[serverJob{i, s, 0}]
				if try > 0 {
					res = reruns[serverJob{i, s, try}]
				}
				cells = append(cells, res.cell())
				if res.played() {
					playedOn[s] = append(playedOn[s], string(res.outcome.Verdict))
				}
			}
			fmt.Fprintf(&b, " on %s the first run and the %d reruns gave %s;", versions[s], serversReruns, strings.Join(cells, ", "))
		}
		b.WriteString(" " + findingReading(playedOn) + "\n\n")
	}
	b.WriteString(clusterReading)
	return b.String(), nil
}

// findingReading says what a finding's runs show, from the verdicts of the
// runs that played on each server: the same verdicts on both is a run not
// played under load, no verdict in common a difference between the
// servers, anything else a verdict that varies on one server.
func findingReading(playedOn [2][]string) string {
	set := func(vs []string) []string {
		out := slices.Clone(vs)
		slices.Sort(out)
		return slices.Compact(out)
	}
	r, v := set(playedOn[0]), set(playedOn[1])
	switch {
	case len(r) == 0 || len(v) == 0:
		return "a server never played the scenario, so the rows say nothing of the servers: the moment the scenario needs did not happen under this load."
	case slices.Equal(r, v) && len(r) == 1:
		return fmt.Sprintf("every run that played gave %s on both servers: the runs that differ did not play the scenario under this load, which is no difference between the servers.", r[0])
	case !slices.ContainsFunc(r, func(x string) bool { return slices.Contains(v, x) }):
		return fmt.Sprintf("the runs that played gave %s on Redis and %s on Valkey, none in common: a difference between the servers.", strings.Join(r, "/"), strings.Join(v, "/"))
	}
	return fmt.Sprintf("the runs that played gave %s on Redis and %s on Valkey: the verdict varies from run to run on one server, with the timing of the run rather than the server.", strings.Join(r, "/"), strings.Join(v, "/"))
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

// TestFindingReading: a finding's runs are read as not played under load
// when every run that played agrees, as a server difference when the
// servers share no verdict, and as varying otherwise; a server that never
// played says nothing of the servers.
func TestFindingReading(t *testing.T) {
	for _, c := range []struct {
		redis, valkey []string
		want          string
	}{
		{[]string{"unsafe", "unsafe"}, []string{"unsafe"}, "did not play the scenario under this load"},
		{[]string{"unsafe", "unsafe"}, []string{"safe", "safe"}, "a difference between the servers"},
		{[]string{"unsafe", "safe"}, []string{"safe"}, "varies from run to run"},
		{nil, []string{"safe"}, "a server never played"},
	} {
		require.Contains(t, findingReading([2][]string{c.redis, c.valkey}), c.want, "%v %v", c.redis, c.valkey)
	}
}
