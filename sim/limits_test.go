package sim

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckMachine: a run is refused, naming its size and the machine's
// limit, when it needs more file descriptors or memory than there are.
func TestCheckMachine(t *testing.T) {
	small := Config{Algorithm: "setpx", Clients: 2, Cluster: ClusterConfig{Nodes: 1}, Duration: 3 * time.Second,
		Hold: 20 * time.Millisecond, Think: 5 * time.Millisecond}
	assert.NoError(t, small.checkMachine(1024, 64<<20, 28232), "the default run fits a small machine")

	many := small
	many.Clients, many.Cluster.Nodes = 500, 5
	assert.ErrorContains(t, many.checkMachine(1024, 1<<40, 0), "clients 500 x nodes 5: needs about 10256 file descriptors, the limit (ulimit -n) is 1024")
	proxied := small
	proxied.Clients, proxied.Cluster.Nodes, proxied.Cluster.ProxiedClients = 100, 3, 100
	assert.Error(t, proxied.checkMachine(2048, 1<<40, 0), "proxies cost descriptors too")
	proxied.Cluster.ProxiedClients = 0
	assert.NoError(t, proxied.checkMachine(2048, 1<<40, 0))

	wide := small
	wide.Clients, wide.Cluster.Nodes, wide.Cluster.ProxiedClients = 1000, 10, 1000
	assert.ErrorContains(t, wide.checkMachine(1<<30, 1<<50, 28232), "clients 1000 x nodes 10: needs about 50010 loopback ports, more than half of the 28232 ephemeral ports")
	assert.NoError(t, wide.checkMachine(1<<30, 1<<50, 0), "unknown range: not checked")
	wide.Cluster.InMemory = true
	assert.NoError(t, wide.checkMachine(1024, 1<<50, 28232), "in memory: no descriptor, no port")

	long := small
	long.Clients, long.Duration = 100, time.Hour
	assert.ErrorContains(t, long.checkMachine(1<<20, 1<<30, 0), "clients 100 for duration 1h0m0s: needs about")
	assert.NoError(t, long.checkMachine(1<<20, 1<<40, 0))
}

func TestValidateNamesTheLimit(t *testing.T) {
	c := Config{Algorithm: "setpx", Clients: MaxClients + 1}.withDefaults()
	assert.ErrorContains(t, c.validate(), "clients 1001: at most 1000")
	c = Config{Algorithm: "redlock", Cluster: ClusterConfig{Nodes: MaxNodes + 1}}.withDefaults()
	assert.ErrorContains(t, c.validate(), "nodes 33: at most 32")
	c = Config{Algorithm: "setpx", Duration: 2 * time.Hour}.withDefaults()
	assert.ErrorContains(t, c.validate(), "duration 2h0m0s: at most 1h0m0s")
	c = Config{Algorithm: "setpx", Keys: maxKeys + 1}.withDefaults()
	assert.ErrorContains(t, c.validate(), "keys 10001: at most 10000")
}

// TestReliabilityPageListsTheLimits keeps docs/reliability.md's limits in
// step with the constants.
func TestReliabilityPageListsTheLimits(t *testing.T) {
	b, err := os.ReadFile("../docs/reliability.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(b)), " ")
	want := fmt.Sprintf("clients %d, nodes %d, keys %d, replicas %d per master, faults %d, duration %s",
		MaxClients, MaxNodes, maxKeys, maxReplicas, MaxFaults, strings.TrimSuffix(strings.TrimSuffix(maxDuration.String(), "0s"), "0m"))
	assert.Contains(t, text, want, "docs/reliability.md lists the limits sim enforces")
}
