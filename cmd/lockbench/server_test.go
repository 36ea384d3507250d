package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// --server is checked with the backend it applies to; each error is one
// line naming --server.
func TestServerFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "mongo"}, `--server "mongo": want redis or valkey`},
		{[]string{"--server", ""}, `--server "": want redis or valkey`},
		{[]string{"--server", "valkey", "--backend", "miniredis"}, `--server valkey is for --backend redis, not --backend miniredis`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, _, err := parse(t, tc.args...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	t.Run("missing valkey-server", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, _, err := parse(t, "--server", "valkey")
		require.ErrorContains(t, err, "--server valkey: valkey-server not found in PATH")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"--server", "valkey", "--out", filepath.Join(t.TempDir(), "o")}, &stdout, &stderr)
		assert.Equal(t, exitUsage, code, stderr.String())
	})
	cfg, _, err := parse(t)
	require.NoError(t, err)
	assert.Equal(t, sim.ServerRedis, cfg.Server, "the default")
}

// A bench on valkey-server names it, with its version, as its backend:
// a server, whose ratios count (bench.RealServer).
func TestBenchOnValkey(t *testing.T) {
	simtest.RequireValkey(t)
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--server", "valkey", "--algos", "setpx,raw", "--clients", "1",
		"--nodes", "1", "--contention", "per-client", "--duration", "100ms", "--rounds", "1", "--warmup", "10ms",
		"--out-dir", out}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	b, err := os.ReadFile(filepath.Join(out, bench.FileJSON))
	require.NoError(t, err)
	var rep bench.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.True(t, strings.HasPrefix(rep.Backend, "valkey-server "), "backend %q", rep.Backend)
	assert.True(t, bench.RealServer(rep.Backend))
}
