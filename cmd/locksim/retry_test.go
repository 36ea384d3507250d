package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vtime"
)

// TestRetriedOperationsThatAlwaysFail: every retrying loop ends when what
// it retries fails for good. A redis-server that dies at once, one whose
// port is always taken, and one that never answers each end the run with
// one line and exit 3 within the bound, leaving no temp dir behind. (The
// run directory's name search is covered by the --out cases of
// TestBadOutPathTable and by report's TestRunDirFailsOnAPermanentError.)
func TestRetriedOperationsThatAlwaysFail(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wants        []string
	}{
		{"dies at once", "echo 'FATAL CONFIG FILE ERROR (Redis 7.0.15)'\nexit 1\n",
			[]string{"exited before answering PING", "FATAL CONFIG FILE ERROR"}},
		{"port always taken", "echo \"Warning: Could not create server TCP listening socket 127.0.0.1:$2: bind: Address already in use\"\nexit 1\n",
			[]string{"5 ports in a row were taken", "Address already in use"}},
		{"never answers", "exec sleep 60\n", []string{"no PONG within 5s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			fake := filepath.Join(bin, "redis-server")
			require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"+tc.script), 0o755))
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			// redis-server's loops run on the wall clock; each has its own
			// bound (the messages name them), the guard only catches a hang
			_, stderr, code := executeGuarded(t, context.Background(), "run", "--algos", "setpx", "--backend", "redis", "--duration", "100ms", "--out", t.TempDir())
			assert.Equal(t, exitHarness, code, stderr)
			last := strings.TrimSpace(stderr)
			last = last[strings.LastIndexByte(last, '\n')+1:]
			for _, w := range tc.wants {
				assert.Contains(t, last, w, "in the last line of: %s", stderr)
			}
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "the node directory is removed")
		})
	}
}

// TestAcquireThatAlwaysFailsEndsWithTheRun: with every client cut off from
// the only node for an hour once client 0 holds the lock (so that the run
// has a lease to judge; at a fixed time, a slow machine could cut the
// clients off before any acquire), the acquire loops still end with the run's
// duration; the partition heals, the probe gets the lock, and the run
// ends with its verdict. In virtual time, as the binary runs it: an hour's
// partition that outlived the run would hang the bubble's clock past the
// run's end, which the hang guard (wall clock) catches.
func TestAcquireThatAlwaysFailsEndsWithTheRun(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`name: acquire-never-succeeds
algorithm: setpx
nodes: 1
clients: 3
duration: 500ms
faults:
  - {kind: partition, when: {client: 0, point: after-acquire}, for: 1h}
expect:
  "*": safe
`), 0o644))
	stdout, stderr, code := executeGuarded(t, virtual(t), "run", f, "--out", dir)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "as expected")
}

// TestProbeThatNeverGetsTheLockEnds: a key left without TTL makes every
// attempt of the liveness probe fail; the probe gives up at its bound
// (TTL + slack), the run ends with its deadlock verdict, as expected.
//
// In virtual time, as the binary runs it: the scenario's moments (client
// 1 held back 300 ms, then refused until the end of a 500 ms run) are
// times, which a loaded machine stretched in real time until client 1
// made no attempt after the crash and the run was "not played" (exit 1).
func TestProbeThatNeverGetsTheLockEnds(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := executeGuarded(t, virtual(t), "run", "crash-between-setnx-expire", "--algos", "setnx-expire", "--duration", "500ms", "--out", out)
	runs, _ := filepath.Glob(filepath.Join(out, "locksim", "crash-between-setnx-expire", "*-setnx-expire-s*", "history.jsonl"))
	require.Len(t, runs, 1, "one run directory")
	b, err := os.ReadFile(runs[0])
	require.NoError(t, err)
	var probes []history.Op
	for line := range strings.Lines(string(b)) {
		var op history.Op
		require.NoError(t, json.Unmarshal([]byte(line), &op))
		if op.Kind == history.KindProbe {
			probes = append(probes, op)
		}
	}
	require.Len(t, probes, 1)
	// virtual time: the probe's span is the schedule's, not the machine's
	bound := 500*time.Millisecond + 500*time.Millisecond // TTL + the default slack
	assert.NotEqual(t, history.OK, probes[0].Outcome, "the key without TTL kept the probe out")
	assert.LessOrEqual(t, probes[0].Return-probes[0].Call, bound+50*time.Millisecond, "the probe gave up at its bound (TTL + slack)")
	assert.GreaterOrEqual(t, probes[0].Return-probes[0].Call, bound, "the probe tried until its bound")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "DEADLOCK")
	assert.Contains(t, stdout, "as expected")
}

// virtual is a context whose miniredis runs go in virtual time, as the
// binary's do under vtime.Main: each run is a bubble in a subtest of t.
func virtual(t *testing.T) context.Context {
	return vtime.NewContext(context.Background(), vtime.ForTest(t))
}

// executeGuarded is execute with ctx, under a hang guard: a command that
// never returns fails the test as hung. It is no measure of speed: a slow
// command is no failure.
func executeGuarded(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	type ret struct {
		stdout, stderr string
		code           int
	}
	done := make(chan ret, 1)
	go func() {
		root := newRoot()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(args)
		err := root.ExecuteContext(ctx)
		if err != nil {
			errb.WriteString(err.Error())
		}
		done <- ret{out.String(), errb.String(), exitCodeOf(err)}
	}()
	select {
	case r := <-done:
		return r.stdout, r.stderr, r.code
	case <-time.After(simtest.HangGuard):
		t.Fatalf("hung: locksim %s has not returned after %v", strings.Join(args, " "), simtest.HangGuard)
		return "", "", 0
	}
}
