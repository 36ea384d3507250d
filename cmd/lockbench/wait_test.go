package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
)

func TestWaitFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--wait", "poll"}, `lockbench: --wait poll: "poll": want poll:<interval> (e.g. poll:50ms) or notify` + "\n"},
		{[]string{"--wait", "poll:0s"}, `lockbench: --wait poll:0s: "poll:0s": the poll interval must be a positive duration such as 50ms` + "\n"},
		{[]string{"--wait", "notify", "--algos", "setpx-del", "--backend", "miniredis"}, "lockbench: --algos setpx-del: cannot wait by notification (setpx, reentrant, fenced and rwlock-counted can)\n"},
		{[]string{"--wait", "notify", "--algos", "setpx,fenced", "--backend", "miniredis"}, "lockbench: --algos setpx,fenced: --wait compares one design\n"},
		{[]string{"--wait", "notify", "--nodes", "3"}, "lockbench: --nodes: not with --wait (the comparison runs one design on one node and one hot key)\n"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, run(context.Background(), tc.args, &stdout, &stderr), tc.args)
		assert.Equal(t, tc.want, stderr.String(), tc.args)
	}
}

func TestWaitRunWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "wait")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--backend", "miniredis", "--wait", "poll:1ms,notify", "--clients", "2",
		"--duration", "200ms", "--rounds", "1", "--hold", "1ms", "--out-dir", out}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "| poll:1ms | 2 |")
	assert.Contains(t, stdout.String(), "| notify | 2 |")
	for _, f := range []string{bench.FileWaitCSV, bench.FileWaitJSON, bench.FileWaitSummary, "wait.png", "wait.svg"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NoError(t, err, f)
	}
}
