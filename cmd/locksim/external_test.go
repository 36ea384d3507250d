package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// startServers starts n Redis servers for a test to give as --addrs, as
// a user's own would be: in-process miniredis nodes on loopback TCP (they
// expire keys in real time, unlike a bare miniredis.Run()), with a client
// to each. The test's cleanup stops them.
func startServers(t *testing.T, n int) ([]redis.UniversalClient, []string) {
	t.Helper()
	c, clients := simtest.Cluster(t, sim.BackendMiniredis, n)
	var addrs []string
	for _, node := range c.Nodes() {
		addrs = append(addrs, node.Addr())
	}
	return clients, addrs
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestRunExternal: `locksim run --addrs` plays a catalogue scenario on
// servers the harness did not start; the verdicts are the scenario's, a
// key an earlier run left (without TTL) does not decide them, each run
// deletes its own keys after it (and nothing else), and the run directory
// says where it ran instead of claiming miniredis.
func TestRunExternal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flags    func(addrs string) []string
		algos    string
		verdicts map[string]string
	}{
		{"addrs imply external", func(a string) []string { return []string{"--addrs", a} },
			"setpx,fenced", map[string]string{"setpx": "unsafe", "fenced": "safe"}},
		{"backend external with addrs", func(a string) []string { return []string{"--backend", "external", "--addrs", a} },
			"redlock", map[string]string{"redlock": "unsafe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clients, addrs := startServers(t, 5)
			ctx := context.Background()
			for _, c := range clients {
				// What a crash between SETNX and EXPIRE leaves: a lock
				// key without TTL that would make every later run wait.
				require.NoError(t, c.Set(ctx, "locksim:0", "stale", 0).Err())
				require.NoError(t, c.Set(ctx, "app:data", "not locksim's", 0).Err())
			}
			joined := strings.Join(addrs, ",")
			out := t.TempDir()
			args := append([]string{"run", "gc-pause-after-check", "--algos", tc.algos, "--json", "--out", out}, tc.flags(joined)...)
			stdout, stderr, code := execute(t, args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stderr, "backend external: 5 masters at "+strings.Join(addrs, ", "))

			var res jsonResult
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.Len(t, res.Runs, len(tc.verdicts))
			for _, r := range res.Runs {
				assert.Equal(t, tc.verdicts[r.Algorithm], string(r.Verdict), r.Algorithm)
				assert.True(t, r.AsExpected, r.Algorithm)

				yaml := readFile(t, filepath.Join(r.Dir, report.FileScenario))
				assert.Contains(t, yaml, "# backend: external, the masters at "+joined)
				assert.NotContains(t, yaml, "\nbackend:", "scenario.yaml must not name a backend the run was not on")
				assert.Contains(t, yaml, "\nnodes: 5\n")
				v, err := report.ReadVerdict(filepath.Join(r.Dir, report.FileVerdict))
				require.NoError(t, err)
				assert.Equal(t, "external", v.Config.Backend)
				assert.Equal(t, 5, v.Config.Nodes)
				summary := readFile(t, filepath.Join(r.Dir, report.FileSummary))
				assert.Contains(t, summary, "external backend: the masters at "+strings.Join(addrs, ", "))
			}
			assert.Contains(t, res.Runs[0].Dir, "gc-pause-after-check")
			for _, c := range clients {
				got, err := c.Get(ctx, "app:data").Result()
				require.NoError(t, err, "keys outside locksim: are left alone")
				assert.Equal(t, "not locksim's", got)
				got, err = c.Get(ctx, "locksim:0").Result()
				require.NoError(t, err, "another run's key is left alone")
				assert.Equal(t, "stale", got)
				keys, err := c.Keys(ctx, "locksim:*").Result()
				require.NoError(t, err)
				assert.Equal(t, []string{"locksim:0"}, keys, "the runs deleted their own keys and released the guard")
			}
		})
	}
}

// toxiServer is a toxiproxy API server in this process that records what
// its clients asked of it.
type toxiServer struct {
	api  *toxiproxy.ApiServer
	http *httptest.Server

	mu      sync.Mutex
	created []string       // proxies made, by name
	deleted map[string]int // proxies removed, by name
	toxics  map[string]int // toxics added, by proxy
}

func startToxiproxy(t *testing.T) *toxiServer {
	t.Helper()
	ts := &toxiServer{
		api:     toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()),
		deleted: map[string]int{},
		toxics:  map[string]int{},
	}
	routes := ts.api.Routes()
	ts.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		routes.ServeHTTP(sw, r)
		if sw.status >= 300 {
			return
		}
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		ts.mu.Lock()
		defer ts.mu.Unlock()
		switch {
		case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == "proxies":
			var p struct{ Name string }
			if json.Unmarshal(body, &p) == nil {
				ts.created = append(ts.created, p.Name)
			}
		case r.Method == http.MethodDelete && len(parts) == 2 && parts[0] == "proxies":
			ts.deleted[parts[1]]++
		case r.Method == http.MethodPost && len(parts) == 3 && parts[2] == "toxics":
			ts.toxics[parts[1]]++
		}
	}))
	t.Cleanup(func() {
		ts.http.Close()
		assert.NoError(t, ts.api.Collection.Clear())
	})
	return ts
}

func (ts *toxiServer) addr() string { return strings.TrimPrefix(ts.http.URL, "http://") }

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// TestRunToxiproxy: with --toxiproxy a scenario's network fault goes
// through that server's API: the proxies are made there, the partition's
// toxics land on them, and every proxy is gone after the run, whether the
// nodes are in-process miniredis or external servers.
func TestRunToxiproxy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		external bool
	}{
		{"in-process nodes", false},
		{"external nodes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startToxiproxy(t)
			out := t.TempDir()
			args := []string{"run", "holder-partitioned", "--algos", "setpx", "--toxiproxy", ts.addr(), "--json", "--out", out}
			if tc.external {
				_, addrs := startServers(t, 5)
				args = append(args, "--addrs", strings.Join(addrs, ","))
			}
			stdout, stderr, code := execute(t, args...)
			require.Equal(t, exitOK, code, stderr)
			var res jsonResult
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.Len(t, res.Runs, 1)
			assert.Equal(t, "safe", string(res.Runs[0].Verdict))

			ts.mu.Lock()
			defer ts.mu.Unlock()
			// Two clients, each with a proxy to each of 5 nodes.
			assert.Len(t, ts.created, 2*5, "proxies made on the toxiproxy server")
			var toxics int
			for _, name := range ts.created {
				assert.True(t, strings.HasPrefix(name, "locksim-"), name)
				assert.Equal(t, 1, ts.deleted[name], "proxy %s removed once", name)
				toxics += ts.toxics[name]
			}
			assert.GreaterOrEqual(t, toxics, 5, "the partition of client 0 from 5 nodes went through the server")
			assert.Empty(t, ts.api.Collection.Proxies(), "no proxy left on the server")

			yaml := readFile(t, filepath.Join(res.Runs[0].Dir, report.FileScenario))
			assert.Contains(t, yaml, "# network: the proxies were on the toxiproxy server at "+ts.addr())
			if !tc.external {
				assert.Contains(t, yaml, "\nbackend: miniredis\n", "the nodes were miniredis; only the proxies were elsewhere")
			}
		})
	}
}

// TestExternalBadInput: what the external backend or the flags cannot do
// exits 2 with one line naming it, before anything runs.
func TestExternalBadInput(t *testing.T) {
	_, addrs := startServers(t, 5)
	five := strings.Join(addrs, ",")
	dir := t.TempDir()
	file := func(name, yaml string) string {
		p := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(p, []byte(yaml), 0o644))
		return p
	}
	const head = "algorithm: redlock\nnodes: 5\nclients: 2\nduration: 300ms\nfaults:\n"
	clockJump := file("clock", "name: clock\n"+head+"  - {kind: clock-jump-node, node: 1, by: 1s, at: 10ms}\n")
	pauseOpen := file("pause", "name: pause\n"+head+"  - {kind: pause-node, node: 1, at: 10ms}\n")
	// Two nodes down for good: redlock could never reach a majority, but
	// the design given is setpx, and the real reason is process control.
	twoDown := file("twodown", "name: twodown\nalgorithm: [redlock, setpx]\nnodes: 3\nduration: 300ms\nfaults:\n"+
		"  - {kind: kill-node, node: 0, at: 10ms}\n  - {kind: kill-node, node: 1, at: 10ms}\n")
	// The file names redlock alone, which could not reach a majority;
	// setpx given with --algos could run, but not on servers locksim
	// cannot kill.
	onlyRedlock := file("one", "name: one\nalgorithm: redlock\nnodes: 3\nduration: 300ms\nfaults:\n"+
		"  - {kind: kill-node, node: 0, at: 10ms}\n  - {kind: kill-node, node: 1, at: 10ms}\n")
	down := closedAddr(t)
	ts := startToxiproxy(t)
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string // all in the one-line error
	}{
		{"external without addrs", []string{"run", "--algos", "setpx", "--backend", "external"}, []string{"--backend external needs --addrs"}},
		{"matrix external without addrs", []string{"matrix", "--backend", "external"}, []string{"--backend external needs --addrs"}},
		{"addrs with another backend", []string{"run", "--algos", "setpx", "--backend", "redis", "--addrs", addrs[0]}, []string{"--addrs", "not --backend redis"}},
		{"malformed address", []string{"run", "--algos", "setpx", "--addrs", "localhost"}, []string{"--addrs", `"localhost"`, "host:port"}},
		{"bad port", []string{"run", "--algos", "setpx", "--addrs", "127.0.0.1:http"}, []string{"--addrs", `"127.0.0.1:http"`, "port"}},
		{"address twice", []string{"run", "--algos", "redlock", "--addrs", addrs[0] + "," + addrs[0]}, []string{"--addrs", addrs[0], "twice"}},
		{"one server as localhost", []string{"run", "--algos", "redlock", "--addrs", addrs[0] + "," + strings.Replace(addrs[0], "127.0.0.1", "localhost", 1)},
			[]string{"--addrs", "node 0 at " + addrs[0], "node 1 at localhost:", "same server", "address " + addrs[0]}},
		{"one server as IPv4-mapped IPv6", []string{"run", "--algos", "redlock", "--addrs", addrs[1] + "," + addrs[0] + ",[::ffff:" + strings.Replace(addrs[0], ":", "]:", 1)},
			[]string{"--addrs", "node 1 at " + addrs[0], "node 2 at [::ffff:127.0.0.1]:", "same server"}},
		{"matrix one server twice", []string{"matrix", "--addrs", addrs[0] + "," + strings.Replace(addrs[0], "127.0.0.1", "localhost", 1)}, []string{"--addrs", "same server"}},
		{"matrix malformed address", []string{"matrix", "--addrs", "nohost"}, []string{"--addrs", `"nohost"`}},
		{"malformed toxiproxy", []string{"run", "--algos", "setpx", "--toxiproxy", "8474"}, []string{"--toxiproxy", `"8474"`}},
		{"kill-node on external", []string{"run", "redlock-restart-no-fsync", "--addrs", five}, []string{"kill-node", "external backend", "process control"}},
		{"kill-node on external, another design given", []string{"run", twoDown, "--algos", "setpx", "--addrs", strings.Join(addrs[:3], ",")},
			[]string{"twodown.yaml:6", "kill-node", "external backend", "process control"}},
		{"kill-node on external, the design given expected as skip", []string{"run", "redlock-restart-no-fsync", "--algos", "setpx", "--addrs", five},
			[]string{"kill-node", "external backend", "process control"}},
		{"kill-node on external, a file of another design", []string{"run", onlyRedlock, "--algos", "setpx", "--addrs", strings.Join(addrs[:3], ",")},
			[]string{"one.yaml:6", "kill-node", "external backend", "process control"}},
		{"clock-jump-node on external", []string{"run", clockJump, "--addrs", five}, []string{"clock.yaml:", "clock-jump-node", "external backend"}},
		{"pause-node without for on external", []string{"run", pauseOpen, "--addrs", five}, []string{"pause.yaml:", "pause-node", "external backend", "for"}},
		{"replicas on external", []string{"run", "--algos", "setpx", "--addrs", addrs[0], "failover-async-replication"}, []string{"failover", "external backend"}},
		{"nodes differ from addrs", []string{"run", "gc-pause-after-check", "--addrs", addrs[0] + "," + addrs[1]}, []string{"gc-pause-after-check", "nodes: 5", "2 addresses"}},
		{"--nodes differs from addrs", []string{"run", "--algos", "setpx", "--nodes", "3", "--addrs", addrs[0]}, []string{"--nodes 3", "1 address "}},
		{"server down", []string{"run", "--algos", "setpx", "--addrs", down}, []string{"--addrs", down, "PING"}},
		{"toxiproxy down", []string{"run", "--algos", "setpx", "--toxiproxy", down}, []string{"--toxiproxy", down}},
		{"matrix parallel on external", []string{"matrix", "--addrs", five, "--parallel", "3"}, []string{"--parallel 3", "one at a time"}},
		{"matrix toxiproxy down", []string{"matrix", "--scenarios", "holder-partitioned", "--toxiproxy", down}, []string{"--toxiproxy", down}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			_, stderr, code := execute(t, append(tc.args, "--out", out)...)
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(dropNotes(stderr))
			assert.NotContains(t, msg, "\n", "one clear line")
			for _, w := range tc.wants {
				assert.Contains(t, msg, w)
			}
			assert.NoDirExists(t, out, "bad input writes no result")
		})
	}
	assert.Empty(t, ts.created, "no bad input reached the toxiproxy server")
}

// TestMatrixExternal: on external servers the matrix runs what they can
// take, one run at a time, and skips with the reason the pairs that need
// process control or another node count.
func TestMatrixExternal(t *testing.T) {
	_, addrs := startServers(t, 5)
	out := t.TempDir()
	stdout, stderr, code := execute(t, "matrix", "--addrs", strings.Join(addrs, ","), "--json", "--out", out,
		"--scenarios", "gc-pause-after-check,redlock-restart-no-fsync,failover-async-replication", "--algos", "setpx,redlock")
	require.Equal(t, exitOK, code, stderr)
	var m struct {
		Dir string `json:"dir"`
		matrix.Matrix
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &m), stdout)
	assert.Equal(t, "external", m.Backend)
	assert.Equal(t, addrs, m.Addrs)
	assert.Equal(t, 1, m.Parallel, "runs on shared servers go one at a time")
	for _, tc := range []struct {
		scenario, algo string
		status         matrix.CellStatus
		reason         []string
	}{
		{"gc-pause-after-check", "setpx", matrix.CellRan, nil},
		{"gc-pause-after-check", "redlock", matrix.CellRan, nil},
		{"redlock-restart-no-fsync", "redlock", matrix.CellSkip, []string{"not on backend external", "kill-node", "process control"}},
		{"failover-async-replication", "setpx", matrix.CellSkip, []string{"not on backend external", "has 1 node", "given 5 addresses"}},
	} {
		c := m.Cell(tc.scenario, tc.algo)
		require.NotNil(t, c, "%s × %s", tc.scenario, tc.algo)
		assert.Equal(t, tc.status, c.Status, "%s × %s: %s", tc.scenario, tc.algo, c.Reason)
		assert.True(t, c.AsExpected, "%s × %s", tc.scenario, tc.algo)
		for _, r := range tc.reason {
			assert.Contains(t, c.Reason, r)
		}
		if tc.status == matrix.CellRan {
			require.Len(t, c.Runs, 1)
			yaml := readFile(t, filepath.Join(m.Dir, c.Runs[0].Dir, report.FileScenario))
			assert.Contains(t, yaml, "# backend: external")
		}
	}
}

// dropNotes drops the "note:" lines a run prints before its work (a
// design left out because it cannot run here), leaving the error.
func dropNotes(stderr string) string {
	var kept []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "note: ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// TestTwoRunsOnOneExternalServer: while a run holds an external server, a
// second run on it refuses to start (exit 3, one line naming the server,
// the holder and the guard key) and touches none of its keys, so the
// first run's fence counter is never reset under it and its verdict
// stands; once the first run ends, the second runs.
func TestTwoRunsOnOneExternalServer(t *testing.T) {
	c, clients := simtest.Cluster(t, sim.BackendRedis, 1)
	addr := c.Node(0).Addr()
	ctx := context.Background()
	type result struct {
		stdout, stderr string
		code           int
	}
	first := make(chan result, 1)
	go func() {
		stdout, stderr, code := execute(t, "run", "--algos", "fenced", "--clients", "3", "--duration", "3s", "--addrs", addr, "--out", t.TempDir())
		first <- result{stdout, stderr, code}
	}()
	deadline := time.Now().Add(simtest.HangGuard)
	for clients[0].Exists(ctx, scenarios.GuardKey).Val() == 0 {
		require.True(t, time.Now().Before(deadline), "hung: the first run never took the guard")
		time.Sleep(10 * time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "results")
	_, stderr, code := execute(t, "run", "--algos", "fenced", "--duration", "300ms", "--addrs", addr, "--out", out)
	assert.Equal(t, exitHarness, code, stderr)
	msg := strings.TrimSpace(dropNotes(stderr))
	lines := strings.Split(msg, "\n")
	last := lines[len(lines)-1]
	for _, w := range []string{"external node 0 at " + addr, "another locksim run", "pid", scenarios.GuardKey, "one at a time"} {
		assert.Contains(t, last, w)
	}
	assert.Empty(t, runDirs(out, "adhoc", "fenced"), "the refused run wrote no result")

	r := <-first
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "SAFE")
	assert.Empty(t, clients[0].Keys(ctx, "locksim:*").Val(), "the first run deleted its keys and released the guard")

	_, stderr, code = execute(t, "run", "--algos", "fenced", "--duration", "300ms", "--addrs", addr, "--out", out)
	assert.Equal(t, exitOK, code, stderr)
}

// TestOneServerOnTwoAddresses: a redis-server listening on two loopback
// addresses is one server: its run_id (INFO server) says so, and the run
// is refused in one line, exit 2, though the addresses differ.
func TestOneServerOnTwoAddresses(t *testing.T) {
	simtest.RequireRedisServer(t)
	bin, err := node.LookupRedisServer("")
	require.NoError(t, err)
	port := strings.TrimPrefix(closedAddr(t), "127.0.0.1:")
	srv := exec.Command(bin, "--port", port, "--bind", "127.0.0.1 127.0.0.2", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.2:" + port})
	defer c.Close()
	deadline := time.Now().Add(simtest.HangGuard)
	for c.Ping(context.Background()).Err() != nil {
		require.True(t, time.Now().Before(deadline), "hung: redis-server never answered on 127.0.0.2:%s", port)
		time.Sleep(20 * time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "results")
	_, stderr, code := execute(t, "run", "--algos", "redlock", "--duration", "300ms", "--addrs", "127.0.0.1:"+port+",127.0.0.2:"+port, "--out", out)
	assert.Equal(t, exitUsage, code, stderr)
	msg := strings.TrimSpace(stderr)
	assert.NotContains(t, msg, "\n", "one line")
	assert.Contains(t, msg, "node 0 at 127.0.0.1:"+port+" and node 1 at 127.0.0.2:"+port+" are the same server (run_id ")
	assert.NoDirExists(t, out)
}
