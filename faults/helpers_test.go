package faults_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// baseConfig is a small world on backend: setpx, 500ms TTL.
func baseConfig(b sim.Backend, clients, nodes int) sim.Config {
	return sim.Config{
		Algorithm: "setpx",
		Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true},
		Cluster:   sim.ClusterConfig{Backend: b, Nodes: nodes},
		Clients:   clients,
		Seed:      1,
	}
}

// world starts cfg's cluster and a world around it (clients not running),
// closed at the test's end. Faults in cfg.Faults only decide whether clients
// sit behind proxies; tests start and stop faults by hand.
func world(t *testing.T, cfg sim.Config) *sim.World {
	t.Helper()
	if cfg.Cluster.Backend == sim.BackendRedis {
		simtest.RequireRedisServer(t)
	}
	if cfg.Cluster.Dir == "" {
		cfg.Cluster.Dir = t.TempDir()
	}
	spec, err := cfg.Resolve()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), simtest.HangGuard)
	defer cancel()
	cluster, err := node.StartCluster(ctx, spec.Config().Cluster)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cluster.Close()) })
	w, err := sim.NewWorld(spec, cluster)
	require.NoError(t, err)
	t.Cleanup(w.Close)
	return w
}

// resolved is cfg as a run takes it: every default filled in.
func resolved(t *testing.T, cfg sim.Config) sim.Config {
	t.Helper()
	spec, err := cfg.Resolve()
	require.NoError(t, err)
	return spec.Config()
}

// withNetwork marks cfg as needing its clients behind proxies.
func withNetwork(cfg sim.Config) sim.Config {
	cfg.Cluster.ProxiedClients = cfg.Clients
	return cfg
}

func start(t *testing.T, w *sim.World, f sim.Fault) {
	t.Helper()
	if v, ok := f.(sim.Validator); ok {
		require.NoError(t, v.Validate(w.Config()), "validate %s", f)
	}
	require.NoError(t, f.Start(w), "start %s", f)
}

func stop(t *testing.T, w *sim.World, f sim.Fault) {
	t.Helper()
	require.NoError(t, f.Stop(w), "stop %s", f)
}

// conn is client c's connection to node n, as the client sees it.
func conn(t *testing.T, w *sim.World, c, n int) redis.UniversalClient {
	t.Helper()
	cl, err := w.Client(c)
	require.NoError(t, err)
	return cl.Conns()[n]
}

// direct is the harness's own connection to node n's current master.
func direct(t *testing.T, w *sim.World, n int) *redis.Client {
	t.Helper()
	c := w.Cluster().NewClient(n)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ping times one PING bounded by d. A PING that must succeed gets
// simtest.HangGuard: its time is then a lower bound at most, never a ceiling.
func ping(cl redis.UniversalClient, d time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	err := cl.Ping(ctx).Err()
	return time.Since(start), err
}

// eventually polls f every 5ms until it succeeds; it fails as hung after
// simtest.HangGuard.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(simtest.HangGuard)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung: %s: still failing after %v: %v", what, simtest.HangGuard, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func ctxFor(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
