package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// Addresses for configurations that are only checked, never run.
func mustParse(t *testing.T, yaml string) *Scenario {
	t.Helper()
	s, err := Parse("test.yaml", []byte(yaml))
	require.NoError(t, err)
	return s
}

var threeAddrs = []string{"10.0.0.1:6379", "10.0.0.2:6379", "redis-3.example:6380"}

// TestRunConfigExternal: on the external backend, what needs process
// control is refused naming the fault (or the setting) and the backend;
// network faults and timed node pauses pass; the node count comes from the
// addresses.
func TestRunConfigExternal(t *testing.T) {
	const head = "name: ext\nalgorithm: redlock\nclients: 2\nduration: 1s\nnodes: 3\n"
	for _, tc := range []struct {
		name  string
		yaml  string
		wants []string // all in the error; none: the configuration runs
	}{
		{"nodes from the addresses", "name: ext\nalgorithm: redlock\n", nil},
		{"nodes equal the addresses", head, nil},
		{"client faults", head + "faults:\n  - {kind: pause-client, client: 0, at: 10ms, for: 1s}\n  - {kind: clock-jump-client, client: 1, by: 1s, at: 10ms}\n", nil},
		{"delay", head + "faults:\n  - {kind: delay, latency: 5ms, at: 10ms}\n", nil},
		{"partition", head + "faults:\n  - {kind: partition, groups: [[c0], [nodes]], at: 10ms, for: 100ms}\n", nil},
		{"drop", head + "faults:\n  - {kind: drop, client: 0, at: 10ms, for: 100ms}\n", nil},
		{"timed pause-node", head + "faults:\n  - {kind: pause-node, node: 1, at: 10ms, for: 100ms}\n", nil},
		{"random", head + "faults:\n  - {kind: random, at: 10ms}\n", nil},
		{"nodes differ", "name: ext\nalgorithm: redlock\nnodes: 5\n", []string{"test.yaml:3", "nodes", "5 nodes", "3 addresses"}},
		{"kill-node", head + "faults:\n  - {kind: kill-node, node: 1, at: 10ms}\n", []string{"test.yaml:7", "faults[0]", "kill-node", "external backend"}},
		{"clock-jump-node", head + "faults:\n  - {kind: clock-jump-node, node: 0, by: 1s, at: 10ms}\n", []string{"faults[0]", "clock-jump-node", "external backend"}},
		{"clock-rate-node", head + "faults:\n  - {kind: delay, latency: 1ms, at: 5ms}\n  - {kind: clock-rate-node, node: 2, rate: 2, at: 10ms}\n", []string{"faults[1]", "clock-rate-node", "external backend"}},
		{"random mixing kill-node", head + "faults:\n  - {kind: random, kinds: [delay, kill-node], at: 10ms}\n", []string{"faults[0]", "random", "kill-node", "external backend"}},
		{"open pause-node", head + "faults:\n  - {kind: pause-node, node: 1, at: 10ms}\n", []string{"faults[0]", "pause-node", "external backend", "for"}},
		{"pause-node until a point", head + "faults:\n  - {kind: pause-node, node: 1, when: {client: 0, point: after-acquire}, until: {client: 1, point: after-enter}, for: 1s}\n", []string{"pause-node", "external backend", "until"}},
		{"failover", "name: ext\nalgorithm: setpx\nnodes: 3\nreplicas: 1\nfaults:\n  - {kind: failover, node: 0, at: 10ms}\n", []string{"failover", "external backend"}},
		{"replicas", "name: ext\nalgorithm: setpx\nnodes: 3\nreplicas: 1\n", []string{"setpx", "external backend", "replicas"}},
		{"persistence", "name: ext\nalgorithm: setpx\nbackend: redis\npersistence: always\n", []string{"setpx", "external backend", "persistence"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.yaml)
			algo := s.Algorithms()[0]
			cfg, err := s.RunConfig(algo, Servers{Addrs: threeAddrs, Toxiproxy: "toxi.example:8474"})
			if len(tc.wants) > 0 {
				require.Error(t, err)
				assert.True(t, IsBadInput(err), "%v is bad input", err)
				assert.NotContains(t, err.Error(), "\n", "one line")
				for _, w := range tc.wants {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, sim.BackendExternal, cfg.Cluster.Backend)
			assert.Equal(t, threeAddrs, cfg.Cluster.Addrs)
			assert.Equal(t, 3, cfg.Cluster.Nodes)
			assert.Equal(t, "toxi.example:8474", cfg.Cluster.Toxiproxy)
			_, err = cfg.Resolve()
			require.NoError(t, err, "what RunConfig passes, the simulator takes")
		})
	}
}

// TestRunConfigOptions: without addresses the scenario keeps its backend;
// a toxiproxy server applies to every backend; bad addresses are bad input.
func TestRunConfigOptions(t *testing.T) {
	s := mustParse(t, "name: plain\nalgorithm: setpx\nnodes: 2\n")
	cfg, err := s.RunConfig("setpx", Servers{})
	require.NoError(t, err)
	own, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, own, cfg, "no options: Config as it is")

	cfg, err = s.RunConfig("setpx", Servers{Toxiproxy: "127.0.0.1:8474"})
	require.NoError(t, err)
	assert.Equal(t, sim.BackendMiniredis, resolvedConfig(t, cfg).Cluster.Backend)
	assert.Equal(t, "127.0.0.1:8474", cfg.Cluster.Toxiproxy)
	assert.Equal(t, 2, resolvedConfig(t, cfg).Cluster.ProxiedClients, "a toxiproxy server puts every client behind proxies")

	for name, o := range map[string]Servers{
		"no port":           {Addrs: []string{"10.0.0.1"}},
		"port not numeric":  {Addrs: []string{"10.0.0.1:redis", "10.0.0.2:6379"}},
		"port out of range": {Addrs: []string{"10.0.0.1:70000", "10.0.0.2:6379"}},
		"no host":           {Addrs: []string{":6379", "10.0.0.2:6379"}},
		"twice":             {Addrs: []string{"10.0.0.1:6379", "10.0.0.1:6379"}},
		"bad toxiproxy":     {Toxiproxy: "8474"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.RunConfig("setpx", o)
			require.Error(t, err)
			assert.True(t, IsBadInput(err), "%v is bad input", err)
		})
	}
}

// TestResolvedForExternal: a run's scenario.yaml names the backend it ran
// on and where its proxies were, and claims no backend it did not run on.
func TestResolvedForExternal(t *testing.T) {
	s := mustParse(t, "name: ext\nalgorithm: redlock\nbackend: redis\ndoc: >\n  backend: in the doc is left alone\n")
	plain, err := s.Resolved("redlock")
	require.NoError(t, err)
	same, err := s.planYAML("redlock", Servers{})
	require.NoError(t, err)
	assert.Equal(t, string(plain), string(same), "nothing to add: Resolved as it is")

	ext, err := s.planYAML("redlock", Servers{Addrs: threeAddrs, Toxiproxy: "toxi.example:8474"})
	require.NoError(t, err)
	y := string(ext)
	assert.NotContains(t, y, "\nbackend:", "the scenario's own backend is not claimed")
	assert.Contains(t, y, "# backend: external, the masters at "+strings.Join(threeAddrs, ","))
	assert.Contains(t, y, "# network: the proxies were on the toxiproxy server at toxi.example:8474")
	assert.Contains(t, y, "\nnodes: 3\n", "one node per address")
	assert.Contains(t, y, "backend: in the doc is left alone")
	back, err := Parse("scenario.yaml", ext)
	require.NoError(t, err, "the file still loads:\n%s", y)
	assert.Equal(t, 3, *back.Nodes)

	toxi, err := s.planYAML("redlock", Servers{Toxiproxy: "toxi.example:8474"})
	require.NoError(t, err)
	assert.Contains(t, string(toxi), "\nbackend: redis\n# network: the proxies were on the toxiproxy server at toxi.example:8474,")
}

// TestClearKeys: before a run on external servers, every key under
// locksim: goes (in batches), and nothing else.
func TestClearKeys(t *testing.T) {
	c, clients := simtest.Cluster(t, sim.BackendMiniredis, 2)
	ctx := context.Background()
	const stale = 1234 // more than one SCAN batch
	for i := range stale {
		require.NoError(t, clients[0].Set(ctx, fmt.Sprintf("locksim:%d", i), "x", 0).Err())
	}
	require.NoError(t, clients[1].Set(ctx, "{locksim:0}:fence", "41", 0).Err())
	require.NoError(t, clients[1].Set(ctx, "app:locksim:0", "theirs", 0).Err())
	require.NoError(t, clients[1].Set(ctx, "locksim", "theirs too", 0).Err())
	addrs := []string{c.Node(0).Addr(), c.Node(1).Addr()}

	n, err := clearKeys(ctx, addrs, "locksim:")
	require.NoError(t, err)
	assert.Equal(t, stale+1, n)
	left0, err := clients[0].Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.Empty(t, left0)
	left1, err := clients[1].Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"app:locksim:0", "locksim"}, left1)

	n, err = clearKeys(ctx, addrs, "locksim:")
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to clear")
}

// planYAML is the scenario.yaml a run of algo on w writes.
func (s *Scenario) planYAML(algo string, w Servers) ([]byte, error) {
	p, err := s.Plan(algo, w)
	return p.YAML, err
}
