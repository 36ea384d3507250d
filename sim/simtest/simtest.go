// Package simtest starts locksim clusters for tests and cleans up after them.
package simtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock/locktest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// RequireEnv names the variable that turns a missing redis-server (or
// another tool a test needs, RequireTool) from a skip into a failure; CI
// sets it so that a skip there cannot hide anything.
const RequireEnv = "LOCKSIM_REQUIRE_REDIS"

// HangGuard bounds a test's wait for something that must happen (a reply, a
// process exiting, a goroutine reaching a point). It is no measure of how
// fast anything is, and a test must never pass or fail on speed: only a hang
// outlasts it, on any machine, however loaded. Tests assert what happened
// (and in which order), or lower bounds, never that it happened quickly.
const HangGuard = locktest.HangGuard

// startTimeout bounds starting a cluster in a test: a hang guard.
const startTimeout = HangGuard

// RequireRedisServer skips the test when redis-server is not in PATH, or
// fails it when LOCKSIM_REQUIRE_REDIS=1.
func RequireRedisServer(t testing.TB) {
	t.Helper()
	if _, err := node.LookupRedisServer(""); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1 makes this a failure)", err, RequireEnv)
		}
		t.Skipf("skipping: %v (set %s=1 to fail instead)", err, RequireEnv)
	}
}

// RequireValkey skips the test when valkey-server (for --server valkey)
// is not in PATH, or fails it when LOCKSIM_REQUIRE_REDIS=1.
func RequireValkey(t testing.TB) {
	t.Helper()
	if _, err := node.LookupServer(sim.ServerValkey, ""); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1 makes this a failure)", err, RequireEnv)
		}
		t.Skipf("skipping: %v (set %s=1 to fail instead)", err, RequireEnv)
	}
}

// requireServer skips (or fails) a test whose cluster runs on a server
// that is not installed: redis-server, or valkey-server for ServerValkey.
func requireServer(t testing.TB, cfg sim.ClusterConfig) {
	t.Helper()
	switch {
	case cfg.Backend != sim.BackendRedis:
	case cfg.Server == sim.ServerValkey:
		RequireValkey(t)
	default:
		RequireRedisServer(t)
	}
}

// RequireTool returns the path of the first of names found in PATH. When
// none is, it skips the test with a message naming install (how to get
// the tool, e.g. "apt-get install chromium"), or fails it when
// LOCKSIM_REQUIRE_REDIS=1: CI installs every tool a test needs, so a skip
// there would hide a test that never ran.
func RequireTool(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if path, err := exec.LookPath(n); err == nil {
			return path
		}
	}
	msg := fmt.Sprintf("none of %s is in PATH (%s)", strings.Join(names, ", "), install)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1 makes this a failure)", msg, RequireEnv)
	}
	t.Skipf("skipping: %s (set %s=1 to fail instead)", msg, RequireEnv)
	return ""
}

// Backends lists the backends a test runs on, in order. Tests use
// ForEachBackend, which also skips (or fails) redis-server's subtest.
func Backends() []sim.Backend {
	return []sim.Backend{sim.BackendMiniredis, sim.BackendRedis}
}

// Runner is *testing.T or *testing.B: a test that runs subtests of its own
// kind.
type Runner[T testing.TB] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// ForEachBackend runs f as a subtest named after each backend (miniredis,
// then redis). The redis subtest is skipped with a message naming the
// missing redis-server, or failed when LOCKSIM_REQUIRE_REDIS=1 (as in CI), before
// f runs; f need not check again.
func ForEachBackend[T Runner[T]](t T, f func(t T, b sim.Backend)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(string(b), func(t T) {
			if b == sim.BackendRedis {
				RequireRedisServer(t)
			}
			f(t, b)
		})
	}
}

// Cluster starts a cluster of nodes on backend for the test and registers
// Cleanup to close it and every client it handed out.
func Cluster(t testing.TB, backend sim.Backend, nodes int) (*sim.Cluster, []redis.UniversalClient) {
	t.Helper()
	return ClusterWith(t, sim.ClusterConfig{Backend: backend, Nodes: nodes})
}

// ClusterWith is Cluster with a full configuration (e.g. persistence). An
// empty cfg.Dir becomes a test temp dir.
func ClusterWith(t testing.TB, cfg sim.ClusterConfig) (*sim.Cluster, []redis.UniversalClient) {
	t.Helper()
	requireServer(t, cfg)
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := node.StartCluster(ctx, cfg)
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	// Cleanups run last-in first-out: clients close before their nodes.
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close cluster: %v", err)
		}
	})
	clients := c.NewClients()
	t.Cleanup(func() {
		for _, cl := range clients {
			_ = cl.Close()
		}
	})
	return c, clients
}
