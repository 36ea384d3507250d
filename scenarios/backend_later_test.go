package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// TestRedisOnlySettingsWaitForTheBackend: a file that names no backend may
// ask for what only redis-server has (persistence, a failover by
// Sentinel): it is meant for --backend redis, which the
// command line applies after parsing. It parses; resolved for redis it
// runs; resolved for miniredis it is refused in one line naming the field.
func TestRedisOnlySettingsWaitForTheBackend(t *testing.T) {
	for _, c := range []struct{ name, yaml, field string }{
		{"sentinel", "failover: {mode: sentinel}\nreplicas: 1\n", "failover.mode"},
		{"persistence", "persistence: always\n", "persistence"},
		{"both", "persistence: everysec\nfailover: {mode: direct}\nreplicas: 1\n", "persistence"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenarios.Parse(c.name+".yaml", []byte("name: "+c.name+"\nalgorithm: setpx\n"+c.yaml))
			require.NoError(t, err, "parses without a backend")
			_, err = s.Config("setpx")
			require.Error(t, err, "miniredis has no such setting")
			assert.Contains(t, err.Error(), c.field)
			assert.NotContains(t, err.Error(), "\n")
			require.NoError(t, s.Override(scenarios.Overrides{Backend: string(sim.BackendRedis)}))
			_, err = s.Config("setpx")
			assert.NoError(t, err, "--backend redis")
		})
	}
	// A direct promotion is what miniredis's emulated failover does: a
	// file that says direct runs on both backends.
	s, err := scenarios.Parse("direct.yaml", []byte("name: direct\nalgorithm: setpx\nfailover: {mode: direct}\nreplicas: 1\n"))
	require.NoError(t, err)
	_, err = s.Config("setpx")
	assert.NoError(t, err)
	_, err = scenarios.Parse("bad.yaml", []byte("name: bad\nalgorithm: setpx\nbackend: miniredis\npersistence: always\n"))
	assert.ErrorContains(t, err, "persistence", "a file that names miniredis is refused at once")
}
