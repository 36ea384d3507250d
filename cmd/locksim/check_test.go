package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/report"
)

// checkedRun makes a small run directory to re-check.
func checkedRun(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	_, stderr, code := execute(t, "run", "--algos", "setpx", "--clients", "3", "--duration", "200ms", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	runs := runDirs(out, "adhoc", "setpx")
	require.Len(t, runs, 1)
	return runs[0]
}

// copyRun copies a run directory's verdict and history to a fresh one.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range []string{report.FileVerdict, report.FileHistory, report.FileScenario} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, f), b, 0o644))
	}
	return dst
}

// setSavedClients rewrites the client count verdict.json records.
func setSavedClients(t *testing.T, dir string, n int) {
	t.Helper()
	path := filepath.Join(dir, report.FileVerdict)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	v["config"].(map[string]any)["clients"] = n
	b, err = json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// executeWithin runs the CLI in-process under ctx and fails, rather than
// hangs, when it has not returned within hangGuard.
func executeWithin(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		stdout, stderr string
		code           int
	}
	done := make(chan result, 1)
	go func() {
		root := newRoot()
		var out, errb strings.Builder
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(args)
		err := root.ExecuteContext(ctx)
		if err != nil {
			errb.WriteString(err.Error())
		}
		done <- result{out.String(), errb.String(), exitCodeOf(err)}
	}()
	select {
	case r := <-done:
		return r.stdout, r.stderr, r.code
	case <-time.After(hangGuard):
		t.Fatalf("hung: locksim %v still running after %v", args, hangGuard)
		return "", "", 0
	}
}

// TestCheckBadInputTable: locksim check refuses, in one line naming the
// file and the limit and with exit 2, a run directory holding more than
// this machine can check, or files it cannot read without blocking: a
// FIFO as history.jsonl or verdict.json, a history larger than this
// machine's memory budget (a sparse file). The clients' bound is
// TestCheckClientBound's.
func TestCheckBadInputTable(t *testing.T) {
	run := checkedRun(t)
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
		wants []string
	}{
		{"history is a FIFO", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, report.FileHistory)) }, []string{report.FileHistory, "a FIFO"}},
		{"verdict is a FIFO", func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, report.FileVerdict)) }, []string{report.FileVerdict, "a FIFO"}},
		{"history larger than memory", func(t *testing.T, dir string) {
			require.NoError(t, os.Truncate(filepath.Join(dir, report.FileHistory), 1<<40))
		}, []string{report.FileHistory, "larger than", "MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRun(t, run)
			tc.spoil(t, dir)
			_, stderr, code := executeWithin(t, context.Background(), "check", dir)
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(stderr)
			assert.NotContains(t, msg, "\n", "one line")
			for _, w := range tc.wants {
				assert.Contains(t, msg, w)
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.Remove(path))
	require.NoError(t, syscall.Mkfifo(path, 0o600))
}

// TestCheckInterrupted: a signal (the command's context ending) stops
// check with exit 3, saying it was interrupted.
func TestCheckInterrupted(t *testing.T) {
	dir := checkedRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, stderr, code := executeWithin(t, ctx, "check", dir)
	assert.Equal(t, exitHarness, code, stderr)
	assert.Contains(t, stderr, "interrupted")
}

// TestCheckAggregatesWarnings: a history where most of many clients never
// tried for the lock prints a few warning lines, the rest counted in one,
// not a line per client.
func TestCheckAggregatesWarnings(t *testing.T) {
	dir := copyRun(t, checkedRun(t))
	setSavedClients(t, dir, 1000)
	stdout, stderr, code := executeWithin(t, context.Background(), "check", dir)
	require.NotEqual(t, exitUsage, code, "%s", stderr)
	require.NotEqual(t, exitHarness, code, "%s", stderr)
	lines := strings.Count(stdout, "never tried to acquire")
	assert.LessOrEqual(t, lines, 10, "%s%s", stdout, stderr)
	assert.Contains(t, stdout, "more clients never tried to acquire the lock (clients ")
}

// TestAggregateWarnings: per-client warnings beyond the first few of their
// kind are counted in one line naming the first and last client; the
// others stay as they are.
func TestAggregateWarnings(t *testing.T) {
	var ws []string
	ws = append(ws, "no acquire succeeded while fault 1 was on")
	for c := range 1200 {
		ws = append(ws, fmt.Sprintf("client %d never acquired the lock (1 attempt: 1 refused): the run tested 1199 others", c))
	}
	ws = append(ws, "client 1200 never tried to acquire the lock: the run tested 1200 others",
		"client 1201 never tried to acquire the lock: the run tested 1200 others",
		"client 1202 never tried to acquire the lock: the run tested 1200 others",
		"client 1203 never tried to acquire the lock: the run tested 1200 others")
	got := aggregateWarnings(ws)
	want := []string{
		ws[0], ws[1], ws[2], ws[3],
		ws[1201], ws[1202], ws[1203],
		"1,197 more clients never acquired the lock (clients 3 to 1199)",
		"1 more client never tried to acquire the lock (client 1203)",
	}
	assert.Equal(t, want, got)
	assert.Equal(t, ws[:3], aggregateWarnings(ws[:3]))
}

// TestPerClientWarning: only "client <n> " followed by a per-client kind
// is a warning about one client.
func TestPerClientWarning(t *testing.T) {
	for w, want := range map[string][2]string{
		"client 12 never acquired the lock (1 attempt: all 1 failed): the run tested x": {"12", "never acquired the lock"},
		"client 0 never tried to acquire the lock: the run tested x":                    {"0", "never tried to acquire the lock"},
		"client x never tried to acquire the lock":                                      {},
		"client  never tried to acquire the lock":                                       {},
		"client 3never tried to acquire the lock":                                       {},
		"client 3 was starved":                                                          {},
		"no acquire succeeded while fault 1 was on":                                     {},
		"client 7": {},
	} {
		client, kind, ok := perClientWarning(w)
		assert.Equal(t, want[0] != "", ok, w)
		assert.Equal(t, want, [2]string{client, kind}, w)
	}
}
