package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

func TestEveryFaultKindBuilds(t *testing.T) {
	s, err := Parse("all.yaml", []byte(`name: all-kinds
algorithm: redlock
nodes: 5
replicas: 1
clients: 2
faults:
  - {kind: clock-skew-client, client: 1, offset: 2s, at: 0s}
  - {kind: clock-jump-client, client: 0, by: -1s, at: 100ms, for: 50ms}
  - {kind: clock-jump-node, node: 2, by: 1s, when: {client: 0, point: after-enter}}
  - {kind: clock-rate-node, node: 2, rate: 2, at: 0s}
  - {kind: delay, groups: [[c0], [resource]], latency: 1s, jitter: 10ms, when: {client: 0, point: after-check}, for: 2s}
  - {kind: partition, groups: [[c0, n0, n1, n2], [c1, n2, n3, n4]], at: 0s}
  - {kind: drop, client: 1, node: 3, at: 100ms, for: 100ms}
  - {kind: pause-node, node: 1, at: 100ms, for: 100ms}
  - {kind: kill-node, node: 3, at: 1200ms, restart_after: 10ms}
  - {kind: kill-node, node: 4, at: 1200ms, keep_data: true}
  - {kind: failover, node: 0, when: {client: 0, point: after-acquire}}
  - {kind: random, at: 0s, for: 1s}
  - {kind: random, at: 0s, kinds: [delay, pause-node], interval: 100ms, seed: 9}
`))
	require.NoError(t, err)
	cfg, err := s.Config("redlock")
	require.NoError(t, err)
	want := []sim.Fault{
		faults.ClockSkewClient{Client: 1, Offset: 2 * time.Second},
		faults.ClockJumpClient{Client: 0, By: -time.Second},
		faults.ClockJumpNode{Node: 2, By: time.Second},
		faults.ClockRateNode{Node: 2, Rate: 2},
		faults.Delay{Links: faults.Links{Groups: [][]string{{"c0"}, {"resource"}}}, Latency: time.Second, Jitter: 10 * time.Millisecond},
		faults.Partition{Links: faults.Links{Groups: [][]string{{"c0", "n0", "n1", "n2"}, {"c1", "n2", "n3", "n4"}}}},
		faults.Drop{Links: faults.Links{Clients: []int{1}, Nodes: []int{3}}},
		faults.PauseNode{Node: 1, For: 100 * time.Millisecond},
		faults.KillNode{Node: 3, RestartAfter: 10 * time.Millisecond},
		faults.KillNode{Node: 4, RestartAfter: faults.StayDown, KeepData: true},
		faults.Failover{Node: 0},
		faults.Random{},
		faults.Random{Seed: 9, Interval: 100 * time.Millisecond, Kinds: []vocab.Kind{"delay", "pause-node"}},
	}
	require.Len(t, cfg.Faults, len(want))
	for i, w := range want {
		assert.Equal(t, w, cfg.Faults[i].Fault, "faults[%d]", i)
	}
	assert.Equal(t, 2, resolvedConfig(t, cfg).Cluster.ProxiedClients, "the partition puts the clients behind proxies")
}

func TestFaultKindErrors(t *testing.T) {
	for name, c := range map[string]struct{ yaml, want string }{
		"group name":      {"  - {kind: partition, groups: [[c0], [x1]], at: 0s}\n", `endpoint "x1"`},
		"group range":     {"  - {kind: partition, groups: [[c0], [n7]], at: 0s}\n", "n7: out of range"},
		"no replicas":     {"  - {kind: failover, node: 0, at: 0s}\n", "replicas: 1"},
		"skew nothing":    {"  - {kind: clock-skew-client, client: 0, at: 0s}\n", "offset, rate or both"},
		"backward node":   {"  - {kind: clock-jump-node, node: 0, by: -1s, at: 0s}\n", "only jump forward"},
		"jump node for":   {"  - {kind: clock-jump-node, node: 0, by: 1s, at: 0s, for: 1s}\n", "has no end"},
		"drop resource":   {"  - {kind: drop, groups: [[c0], [resource]], at: 0s}\n", "no connection to reset"},
		"latency rounded": {"  - {kind: delay, client: 0, latency: 1500us, at: 0s}\n", "whole milliseconds"},
		"random kind":     {"  - {kind: random, kinds: [delay, meteor], at: 0s}\n", `kind "meteor": random mixes`},
		"random no kinds": {"  - {kind: random, kinds: [], at: 0s}\n", "kinds: empty"},
		"random interval": {"  - {kind: random, interval: 0s, at: 0s}\n", "interval: must be positive"},
		"random failover": {"  - {kind: random, kinds: [failover], at: 0s}\n", "kind failover"},
		"seed elsewhere":  {"  - {kind: delay, client: 0, latency: 5ms, seed: 3, at: 0s}\n", "seed"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Parse("k.yaml", []byte("name: k\nalgorithm: setpx\nfaults:\n"+c.yaml))
			if err == nil {
				_, err = s.Config("setpx")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
