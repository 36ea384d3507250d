package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverride(t *testing.T) {
	s, err := Lookup("gc-pause-after-check")
	require.NoError(t, err)
	nodes, ttl, seed := 3, 700*time.Millisecond, uint64(9)
	require.NoError(t, s.Override(Overrides{Algorithms: []string{"setpx"}, Backend: "redis", Nodes: &nodes, TTL: &ttl, Seed: &seed}))
	assert.Equal(t, "redis", s.Backend)
	assert.Equal(t, 3, *s.Nodes)
	assert.Equal(t, Duration(ttl), *s.Options.TTL)
	assert.Equal(t, uint64(9), *s.Seed)
	nodes = 4
	assert.Equal(t, 3, *s.Nodes, "the scenario keeps its own copy")
}

// TestOverrideErrorsNameTheFlag: the range rules are sim's (the same as a
// file's), the words the flag's.
func TestOverrideErrorsNameTheFlag(t *testing.T) {
	i := func(v int) *int { return &v }
	d := func(v time.Duration) *time.Duration { return &v }
	for _, tc := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{Algorithms: []string{"paxos"}}, `--algos: unknown algorithm "paxos"`},
		{Overrides{Nodes: i(0)}, "--nodes 0: need at least 1"},
		{Overrides{Nodes: i(33)}, "--nodes 33: at most 32"},
		{Overrides{Clients: i(100000)}, "--clients 100000: at most 1000"},
		{Overrides{TTL: d(-time.Second)}, "--ttl -1s: must be at least 1ms"},
		{Overrides{Duration: d(2 * time.Hour)}, "--duration 2h0m0s: at most 1h0m0s"},
		{Overrides{Hold: d(0)}, "--hold 0s: must be positive"},
		{Overrides{Nodes: i(2), Addrs: []string{"a:1", "b:2", "c:3"}}, "--nodes 2 but --addrs gives 3 addresses"},
	} {
		s, err := FaultFree([]string{"setpx"})
		require.NoError(t, err)
		err = s.Override(tc.o)
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), tc.want), "%q does not start with %q", err, tc.want)
	}
	_, err := FaultFree(nil)
	assert.ErrorContains(t, err, "--algos")
}

// TestClusterScenarioKeepsItsBackend: a scenario written for a Redis
// Cluster refuses any other backend a command line asks for, whether or
// not it has cluster faults (cluster-crossslot has none: its finding is the
// cluster's CROSSSLOT refusal, which one node never gives), so that its
// expectation is never judged on a run that could not play it.
func TestClusterScenarioKeepsItsBackend(t *testing.T) {
	for _, backend := range []string{"miniredis", "redis"} {
		s, err := Lookup("cluster-crossslot")
		require.NoError(t, err)
		require.NoError(t, s.Override(Overrides{Backend: backend}))
		_, err = s.Config("rwlock")
		require.ErrorContains(t, err, "backend: the scenario is written for a Redis Cluster")
		require.ErrorContains(t, err, "not on backend "+backend)
	}
	s, err := Lookup("cluster-crossslot")
	require.NoError(t, err)
	require.NoError(t, s.Override(Overrides{Backend: "redis-cluster"}))
	_, err = s.Config("rwlock")
	require.NoError(t, err)
}
