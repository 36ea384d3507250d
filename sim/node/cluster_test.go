package node_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

func startCluster(t *testing.T, cfg node.ClusterConfig) *node.Cluster {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	ctx, cancel := withTimeout(simtest.HangGuard)
	defer cancel()
	c, err := node.StartCluster(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// requireGone checks that nothing of a closed cluster is left: no process,
// no listener, no temp dir.
func requireGone(t *testing.T, pids []int, addrs []string, dir string) {
	t.Helper()
	for _, pid := range pids {
		err := syscall.Kill(pid, 0)
		require.ErrorIs(t, err, syscall.ESRCH, "process %d still exists", pid)
	}
	for _, a := range addrs {
		conn, err := net.DialTimeout("tcp", a, time.Second)
		if err == nil {
			conn.Close()
		}
		require.ErrorIs(t, err, syscall.ECONNREFUSED, "something still listens on %s", a)
	}
	if dir != "" {
		_, err := os.Stat(dir)
		require.True(t, errors.Is(err, os.ErrNotExist), "temp dir %s left behind (stat: %v)", dir, err)
	}
}

func snapshot(c *node.Cluster) (pids []int, addrs []string) {
	for _, n := range c.Nodes() {
		if pid := node.NodePID(n); pid != 0 {
			pids = append(pids, pid)
		}
		addrs = append(addrs, n.Addr())
	}
	return pids, addrs
}

func TestCloseLeavesNothing(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c := startCluster(t, node.ClusterConfig{Backend: b, Nodes: 3})
		require.Len(t, c.Nodes(), 3)
		pids, addrs := snapshot(c)
		if b == node.BackendRedis {
			require.Len(t, pids, 3)
			require.DirExists(t, c.Dir())
		}
		ctx, cancel := withTimeout(simtest.HangGuard)
		defer cancel()
		cl := c.NewClient(1)
		defer cl.Close()
		require.NoError(t, cl.Ping(ctx).Err())

		// The hardest states to stop: a paused node with a held command,
		// and a killed one.
		require.NoError(t, c.Node(0).(node.Pauser).Pause())
		held := make(chan error, 1)
		go func() {
			ctx, cancel := withTimeout(simtest.HangGuard)
			defer cancel()
			cl0 := c.NewClient(0)
			defer cl0.Close()
			held <- cl0.Ping(ctx).Err()
		}()
		require.NoError(t, c.Node(2).(node.ProcessController).Kill())

		closed := make(chan error, 1)
		go func() { closed <- c.Close() }()
		select {
		case err := <-closed:
			require.NoError(t, err)
		case <-time.After(simtest.HangGuard):
			t.Fatalf("hung: Close has not returned after %v (a paused node, a killed one)", simtest.HangGuard)
		}
		require.NoError(t, c.Close(), "second Close")
		require.Error(t, <-held, "a command held by a paused node succeeded after Close")
		requireGone(t, pids, addrs, c.Dir())
		require.ErrorIs(t, c.Node(2).(node.ProcessController).Restart(false), node.ErrClusterClosed)
	})
}

// Not parallel, and no test here may be: CloseAll closes every cluster in
// the process.
func TestCloseAllStopsLiveClusters(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c1 := startCluster(t, node.ClusterConfig{Backend: b, Nodes: 1})
		c2 := startCluster(t, node.ClusterConfig{Backend: b, Nodes: 2})
		p1, a1 := snapshot(c1)
		p2, a2 := snapshot(c2)
		require.NoError(t, node.CloseAll())
		requireGone(t, p1, a1, c1.Dir())
		requireGone(t, p2, a2, c2.Dir())
		require.NoError(t, node.CloseAll(), "nothing left to close")
	})
}

func TestStartClusterRejectsBadConfig(t *testing.T) {
	ctx := context.Background()
	for name, cfg := range map[string]node.ClusterConfig{
		"no nodes":                 {Nodes: 0},
		"unknown backend":          {Backend: "memcached", Nodes: 1},
		"unknown persistence":      {Backend: node.BackendRedis, Nodes: 1, Persistence: "sometimes"},
		"persistence on miniredis": {Backend: node.BackendMiniredis, Nodes: 1, Persistence: node.PersistenceAlways},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := node.StartCluster(ctx, cfg)
			require.Error(t, err)
			require.Nil(t, c)
		})
	}
}

func TestStartClusterDefaults(t *testing.T) {
	c := startCluster(t, node.ClusterConfig{Nodes: 1})
	require.Equal(t, node.BackendMiniredis, c.Config().Backend)
	require.Equal(t, node.PersistenceNone, c.Config().Persistence)
	require.Equal(t, node.BackendMiniredis, c.Node(0).Backend())
}

func TestMissingRedisServer(t *testing.T) {
	dir := t.TempDir()
	_, err := node.StartCluster(context.Background(), node.ClusterConfig{
		Backend: node.BackendRedis, Nodes: 1, RedisServer: filepath.Join(dir, "no-such-redis-server"), Dir: dir,
	})
	require.ErrorIs(t, err, node.ErrNoRedisServer)
	require.ErrorContains(t, err, "apt-get install redis-server")

	t.Setenv("PATH", dir)
	_, err = node.LookupRedisServer("")
	require.ErrorIs(t, err, node.ErrNoRedisServer)
}

// A server that cannot start leaves nothing behind, and the error shows why.
func TestStartClusterCleansUpOnFailure(t *testing.T) {
	simtest.RequireRedisServer(t)
	dir := t.TempDir()
	// A wrapper that starts a real server for the first node only, so that
	// the failure comes midway, after something was started.
	script := filepath.Join(dir, "flaky-redis-server")
	real, err := node.LookupRedisServer("")
	require.NoError(t, err)
	counter := filepath.Join(dir, "count")
	require.NoError(t, os.WriteFile(script, []byte(`#!/bin/sh
if [ -e "`+counter+`" ]; then echo "simulated startup failure" >&2; exit 1; fi
touch "`+counter+`"
exec "`+real+`" "$@"
`), 0o755))
	parent := filepath.Join(dir, "parent")
	require.NoError(t, os.Mkdir(parent, 0o755))

	c, err := node.StartCluster(context.Background(), node.ClusterConfig{
		Backend: node.BackendRedis, Nodes: 3, RedisServer: script, Dir: parent,
	})
	require.Error(t, err)
	require.Nil(t, c)
	require.ErrorContains(t, err, "simulated startup failure", "error should carry the server's output")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Empty(t, entries, "temp dir left behind")
	// The first node's server was started and must be gone. Its pid is
	// unknown here and redis-server rewrites its command line, so look for
	// any process whose working directory lies in the parent dir.
	require.Empty(t, processesIn(t, parent), "redis-server left running")
}

// processesIn lists pids whose working directory is under dir.
func processesIn(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob("/proc/[0-9]*/cwd")
	require.NoError(t, err)
	var pids []string
	for _, m := range matches {
		cwd, err := os.Readlink(m)
		if err != nil {
			continue // exited meanwhile, or not ours to read
		}
		if strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			pids = append(pids, filepath.Base(filepath.Dir(m)))
		}
	}
	return pids
}
