package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
)

// reviewAsMain runs locksim review as the binary does (the test binary as
// main, so that the matrix goes in virtual time) and returns its output
// and exit code.
func reviewAsMain(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"review"}, args...)...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(b), ee.ExitCode()
	}
	require.NoError(t, err, string(b))
	return string(b), 0
}

// TestReviewEndToEnd: one command writes one directory holding the page,
// its twin, the matrix and the bench sweep; an unknown design is one line
// and exit 2; a --timeout that runs out is exit 3, with what finished kept
// in a directory marked incomplete.
func TestReviewEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalogue for two designs and a bench sweep")
	}
	out := filepath.Join(t.TempDir(), "review")
	output, code := reviewAsMain(t, "--algos", "setpx,fenced", "--runs", "1",
		"--bench-duration", "90ms", "--bench-rounds", "3", "--out-dir", out)
	require.Equal(t, exitOK, code, output)
	assert.Contains(t, output, filepath.Join(out, "index.html"))
	for _, f := range []string{"index.html", "index.md"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	mx, _ := filepath.Glob(filepath.Join(out, "matrix", "2*", matrix.FileJSON))
	require.Len(t, mx, 1, "the matrix is in the review's directory")
	m, err := matrix.Read(filepath.Dir(mx[0]))
	require.NoError(t, err)
	assert.Equal(t, []string{"setpx", "fenced"}, m.Algorithms)
	bj, _ := filepath.Glob(filepath.Join(out, "lockbench", "2*", bench.FileJSON))
	require.Len(t, bj, 1, "the bench sweep is in the review's directory")
	rep, err := bench.ReadReport(bj[0])
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"setpx", "fenced", bench.Raw}, rep.Settings.Algorithms)
	assert.Equal(t, []int{1, 16, 64}, rep.Settings.Clients)
	for _, r := range rep.Results {
		if r.Algorithm != bench.Raw {
			assert.Equal(t, 3, r.VsRawRounds.Rounds, "%s at %d clients: a ratio to raw in each round", r.Algorithm, r.Clients)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	for _, want := range []string{`<table class="grid">`, `<table class="cost">`, "Measured for this review: ", "<li>setpx: "} {
		assert.Contains(t, string(page), want)
	}
	assert.NoFileExists(t, filepath.Join(out, incompleteFile))
	hidden, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*"))
	assert.Empty(t, hidden, "nothing left under a temporary name")

	t.Run("timeout", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "review")
		output, code := reviewAsMain(t, "--algos", "setpx,redlock", "--runs", "10", "--timeout", "1s", "--out-dir", out)
		require.Equal(t, exitHarness, code, output)
		last := strings.TrimSpace(output)
		last = last[strings.LastIndexByte(last, '\n')+1:]
		assert.Contains(t, last, "ran out of --timeout 1s")
		assert.NoDirExists(t, out, "an unfinished review is not published as finished")
		note, err := os.ReadFile(filepath.Join(out+"-incomplete", incompleteFile))
		require.NoError(t, err, output)
		assert.Contains(t, string(note), "the matrix: the --timeout ran out", "ten runs a pair of two designs cannot finish in 1s")
		// The matrix is cut short: either nothing of it was written, and
		// there is no page, or the pairs that finished were, and the page
		// says at its top that the review did not finish.
		if page, err := os.ReadFile(filepath.Join(out+"-incomplete", "index.html")); err == nil {
			assert.Contains(t, string(page), "This review did not finish")
			assert.Contains(t, string(page), "the matrix was interrupted")
		}
	})
}

func TestReviewBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--algos", "setpx,bogus"}, `"bogus"`},
		{[]string{"--algos", "setpx,setpx"}, `--algos: "setpx" given twice`},
		{[]string{"--runs", "0"}, "--runs 0"},
		{[]string{"--bench-rounds", "2"}, "--bench-rounds 2: at least 3"},
		{[]string{"--explore", "0s"}, "--explore 0s"},
		{[]string{"--timeout", "-1s"}, "--timeout -1s"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, stderr, code := execute(t, append([]string{"review"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, strings.TrimSpace(stderr), "\n", "one line")
		})
	}
}
