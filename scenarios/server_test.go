package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// server: valkey goes with backend: redis into the run's configuration,
// and a run's scenario.yaml says it, so that the file replays on Valkey.
func TestServerFieldResolves(t *testing.T) {
	s, err := scenarios.Parse("s.yaml", []byte("name: v\nalgorithm: setpx\nbackend: redis\nserver: valkey\n"))
	require.NoError(t, err)
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, sim.ServerValkey, cfg.Cluster.Server)
	out, err := s.Resolved("setpx")
	require.NoError(t, err)
	assert.Contains(t, string(out), "\nserver: valkey\n")
	again, err := scenarios.Parse("again.yaml", out)
	require.NoError(t, err)
	assert.Equal(t, "valkey", again.Server)

	// Redis, the default, is not written.
	s, err = scenarios.Parse("s.yaml", []byte("name: r\nalgorithm: setpx\nbackend: redis\n"))
	require.NoError(t, err)
	out, err = s.Resolved("setpx")
	require.NoError(t, err)
	assert.NotContains(t, string(out), "server:")
}

// --server is applied like --backend, and refused, naming itself, where
// the scenario's backend starts no server.
func TestServerOverride(t *testing.T) {
	s, err := scenarios.Lookup("gc-pause-after-check")
	require.NoError(t, err)
	require.ErrorContains(t, s.Override(scenarios.Overrides{Server: "mongo"}), `--server "mongo": want redis or valkey`)
	require.ErrorContains(t, s.Override(scenarios.Overrides{Server: "valkey"}), "--server valkey: scenario gc-pause-after-check runs on backend miniredis; add --backend redis")
	require.NoError(t, s.Override(scenarios.Overrides{Backend: "redis", Server: "valkey"}))
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, sim.ServerValkey, cfg.Cluster.Server)
	assert.Equal(t, sim.BackendRedis, cfg.Cluster.Backend)
}
