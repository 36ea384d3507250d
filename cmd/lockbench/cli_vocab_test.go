package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/exitcode"
)

// lockbench speaks locksim's vocabulary (cmd/locksim/cli_vocab_test.go):
// --out is a results root with a stamped directory under it, --out-dir
// the exact directory, stdout holds results alone, --json keys are
// snake_case, a typo gets "did you mean", and --timeout bounds the whole
// command, keeping what finished.

func TestOutIsAResultsRoot(t *testing.T) {
	root := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--backend", "miniredis", "--algos", "setpx", "--clients", "1",
		"--nodes", "1", "--contention", "per-client", "--duration", "50ms", "--rounds", "1", "--warmup", "5ms",
		"--out", root}, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	got, _ := filepath.Glob(filepath.Join(root, "lockbench", "2*", bench.FileJSON))
	assert.Len(t, got, 1, "OUT/lockbench/<stamp>/")
	assert.Contains(t, stderr.String(), "configurations, about", "the plan is a note, on stderr")
	assert.Contains(t, stderr.String(), "[1/1]", "progress on stderr")
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		assert.Regexp(t, `^(  .*: throughput x|lockbench: wrote )`, line, "stdout holds results alone")
	}
}

var snakeKey = regexp.MustCompile(`^[a-z0-9_*][a-z0-9_*./:-]*$`)

func TestJSONKeysAreSnakeCase(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), tinyRun(filepath.Join(t.TempDir(), "run"), "--json"), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	var v any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &v), stdout.String())
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				assert.Regexp(t, snakeKey, k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "setpx"}, "lockbench: unknown flag: --algo (did you mean --algos?)"},
		{[]string{"--algos", "setpz", "--backend", "miniredis"}, `lockbench: --algos setpz: unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"--under", "crash-holdr", "--backend", "miniredis"}, "(did you mean crash-holder?)"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, run(context.Background(), tc.args, &stdout, &stderr), tc.args)
		msg := strings.TrimSpace(stderr.String())
		assert.NotContains(t, msg, "\n", "one line")
		assert.Contains(t, msg, tc.want)
		assert.Less(t, len(msg), 200, "a hint, not a list of every name")
	}
}

// TestTimeoutKeepsWhatFinished: a --timeout that runs out mid-sweep writes
// the cells that finished to DIR-incomplete, marked so, with exit 3.
func TestTimeoutKeepsWhatFinished(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	var clients []string
	for c := 1; c <= 40; c++ {
		clients = append(clients, strconv.Itoa(c))
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--backend", "miniredis", "--algos", "setpx", "--clients", strings.Join(clients, ","),
		"--nodes", "1", "--contention", "per-client", "--duration", "100ms", "--rounds", "1", "--warmup", "5ms",
		"--timeout", "1500ms", "--out-dir", out}, &stdout, &stderr)
	assert.Equal(t, exitcode.Failed, code, stderr.String())
	assert.Contains(t, stderr.String(), "--timeout 1.5s ran out: stopped after")
	assert.NoDirExists(t, out, "never taken for a whole run")
	b, err := os.ReadFile(filepath.Join(out+"-incomplete", bench.FileJSON))
	require.NoError(t, err, stderr.String())
	var rep bench.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Contains(t, rep.Incomplete, "of 40 cells")
	assert.NotEmpty(t, rep.Results)
	assert.Less(t, len(rep.Results), 40)
	assert.Contains(t, strings.Join(rep.Partial(), "; "), "incomplete", "review passes it over as partial")
}
