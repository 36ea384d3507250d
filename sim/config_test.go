package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

func TestSpecComesOnlyFromResolve(t *testing.T) {
	var zero sim.Spec
	_, err := sim.Run(context.Background(), zero)
	assert.ErrorIs(t, err, sim.ErrConfig)
	_, err = sim.Replay(context.Background(), zero, 2)
	assert.ErrorIs(t, err, sim.ErrConfig)
	_, err = sim.NewWorld(zero, nil)
	assert.ErrorIs(t, err, sim.ErrConfig)
}

func TestResolveFillsTheDefaults(t *testing.T) {
	d := sim.Defaults()
	assert.Equal(t, 2, d.Clients)
	assert.Equal(t, 1, d.Keys)
	assert.Equal(t, 1, d.Nest)
	assert.Equal(t, 1, d.Cluster.Nodes)
	assert.Equal(t, sim.BackendMiniredis, d.Cluster.Backend)
	assert.Equal(t, 3*time.Second, d.Duration)
	assert.Equal(t, 20*time.Millisecond, d.Hold)
	assert.Equal(t, 5*time.Millisecond, d.Think)
	assert.Equal(t, 500*time.Millisecond, d.Options.TTL)
	assert.Equal(t, 0.01, d.Options.Drift)

	spec, err := sim.Config{Algorithm: "setpx"}.Resolve()
	require.NoError(t, err)
	c := spec.Config()
	assert.Equal(t, d.Duration, c.Duration)
	assert.Equal(t, d.Options.TTL, c.Options.TTL)
	assert.Equal(t, 250*time.Millisecond, c.Options.NodeTimeout, "half the TTL on a single-node design")
	assert.Equal(t, 2*c.Options.TTL+c.Hold+time.Second, c.Grace)

	spec, err = sim.Config{Algorithm: "redlock", Cluster: sim.ClusterConfig{Nodes: 3}}.Resolve()
	require.NoError(t, err)
	assert.Equal(t, lock.DefaultNodeTimeout(d.Options.TTL), spec.Config().Options.NodeTimeout, "Redlock's own bound")
	assert.Equal(t, spec.Config().Options.NodeTimeout, sim.DefaultNodeTimeout("redlock", d.Options.TTL))

	again, err := spec.Config().Resolve()
	require.NoError(t, err)
	assert.Equal(t, spec.Config().Duration, again.Config().Duration, "a resolved config resolves to itself")
}

// refusing is a fault that refuses every run.
type refusing struct{}

func (refusing) String() string                { return "refusing" }
func (refusing) Start(*sim.World) error        { return nil }
func (refusing) Stop(*sim.World) error         { return nil }
func (refusing) Validate(cfg sim.Config) error { return errors.New("not here") }

func TestResolveNamesARefusingFaultFirst(t *testing.T) {
	_, err := sim.Config{Algorithm: "setpx", Clients: sim.MaxClients + 1,
		Faults: []sim.Planned{{Fault: refusing{}}}}.Resolve()
	require.EqualError(t, err, "faults[0] refusing: not here")
	var fe *sim.FaultError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 0, fe.Index)

	_, err = sim.Config{Algorithm: "setpx", Clients: sim.MaxClients + 1}.Resolve()
	assert.EqualError(t, err, "clients 1001: at most 1000")
}

func TestSpecConfigIsACopy(t *testing.T) {
	spec, err := sim.Config{Algorithm: "rwlock", Roles: []sim.Access{sim.AccessRead, sim.AccessWrite}}.Resolve()
	require.NoError(t, err)
	c := spec.Config()
	c.Roles[0] = sim.AccessWrite
	assert.Equal(t, sim.AccessRead, spec.Config().Roles[0], "the Spec's roles stay as resolved")
}
