package node_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// INFO server as Redis 7 and Valkey 8 give it: Valkey keeps redis_version
// (the Redis it is compatible with) and adds server_name and its own
// version, which is the one that says what ran.
func TestParseServerVersion(t *testing.T) {
	redis := "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n"
	valkey := "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\nredis_git_sha1:00000000\r\n"
	assert.Equal(t, node.ServerVersion{Name: "redis", Version: "7.0.15"}, node.ParseServerVersion(redis))
	assert.Equal(t, node.ServerVersion{Name: "valkey", Version: "8.0.1"}, node.ParseServerVersion(valkey))
	assert.Equal(t, "valkey 8.0.1", node.ParseServerVersion(valkey).String())
	assert.Equal(t, node.ServerVersion{}, node.ParseServerVersion("# Clients\r\nconnected_clients:1\r\n"), "no version: nothing known")
	assert.Equal(t, "", node.ServerVersion{}.String())
}

// Each server kind names its own binaries; an unknown kind is refused.
func TestServerBinaries(t *testing.T) {
	assert.Equal(t, "redis-server", node.Server("").Binary(), "the default is Redis")
	assert.Equal(t, "redis-sentinel", node.ServerRedis.SentinelBinary())
	assert.Equal(t, "valkey-server", node.ServerValkey.Binary())
	assert.Equal(t, "valkey-sentinel", node.ServerValkey.SentinelBinary())
	require.NoError(t, node.CheckServer(""))
	require.ErrorContains(t, node.CheckServer("keydb"), `unknown server "keydb": want redis or valkey`)
	_, err := node.LookupServer("keydb", "")
	require.Error(t, err)
	_, err = node.StartCluster(context.Background(), node.ClusterConfig{Backend: node.BackendMiniredis, Nodes: 1, Server: node.ServerValkey})
	require.ErrorContains(t, err, "server valkey needs the redis backend")
}

// A missing valkey-server is ErrNoRedisServer (a run says bad input, a
// matrix that its environment failed, as for redis-server) in Valkey's
// words; a sentinel falls back to the server binary in sentinel mode.
func TestLookupValkey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	_, err := node.LookupServer(node.ServerValkey, "")
	require.ErrorIs(t, err, node.ErrNoRedisServer)
	assert.Contains(t, err.Error(), "valkey-server not found in PATH")
	_, err = node.LookupServer(node.ServerValkey, "/no/such/valkey-server")
	require.ErrorIs(t, err, node.ErrNoRedisServer)
	assert.Contains(t, err.Error(), `looked for "/no/such/valkey-server"`)
	_, err = node.LookupRedisServer("")
	require.ErrorIs(t, err, node.ErrNoRedisServer)
	assert.Contains(t, err.Error(), "redis-server not found in PATH")

	fake := filepath.Join(dir, "valkey-server")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755))
	bin, args, err := node.LookupSentinel(node.ServerValkey, "")
	require.NoError(t, err)
	assert.Equal(t, fake, bin, "no valkey-sentinel: valkey-server --sentinel")
	assert.Equal(t, []string{"--sentinel"}, args)
}

// A cluster of valkey-server nodes says it is Valkey, with its version.
func TestValkeyClusterVersion(t *testing.T) {
	simtest.RequireValkey(t)
	c, _ := simtest.ClusterWith(t, node.ClusterConfig{Backend: node.BackendRedis, Server: node.ServerValkey, Nodes: 1})
	v := c.ServerVersion(context.Background())
	assert.Equal(t, "valkey", v.Name)
	assert.NotEmpty(t, v.Version)
	assert.NotEqual(t, "7.2.4", v.Version, "Valkey's own version, not the Redis version it is compatible with")
}
