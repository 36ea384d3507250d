package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sentinel's settings without a mode serve one file on both backends: they
// apply on redis with replicas, and are dropped where the default is not
// sentinel (a cluster that kept them would refuse its own resolved mode).
func TestFailoverSentinelSettingsWithoutMode(t *testing.T) {
	f := FailoverConfig{DownAfter: 5 * time.Second}

	mini := ClusterConfig{Backend: BackendMiniredis, Replicas: 1, Failover: f}.ResolvedFailover()
	assert.Equal(t, FailoverConfig{Mode: FailoverEmulated}, mini)
	_, err := mini.withDefaults(BackendMiniredis, 1)
	require.NoError(t, err, "the resolved mode must resolve again")

	red := ClusterConfig{Backend: BackendRedis, Replicas: 1, Failover: f}.ResolvedFailover()
	assert.Equal(t, FailoverSentinel, red.Mode)
	assert.Equal(t, 5*time.Second, red.DownAfter)
	assert.Equal(t, defaultFailoverTimeout, red.FailoverTimeout)

	_, err = FailoverConfig{Mode: FailoverEmulated, DownAfter: time.Second}.withDefaults(BackendMiniredis, 1)
	assert.ErrorContains(t, err, "Sentinel's settings", "a mode named with Sentinel's settings is still refused")
}
