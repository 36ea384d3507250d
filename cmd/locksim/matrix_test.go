package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/matrix"
)

func TestMatrixBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\nbogus: 1\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown algorithm", []string{"matrix", "--algos", "setpx,bogus"}, `"bogus"`},
		{"unknown scenario", []string{"matrix", "--scenarios", "crash-holder,no-such-scenario"}, "no-such-scenario"},
		{"bad scenario file", []string{"matrix", "--scenarios", bad}, "bogus"},
		{"zero runs", []string{"matrix", "--runs", "0"}, "--runs 0"},
		{"zero parallel", []string{"matrix", "--parallel", "0"}, "--parallel 0"},
		{"bad backend", []string{"matrix", "--backend", "etcd"}, `"etcd"`},
		{"no matrix to report", []string{"report", "--matrix", filepath.Join(dir, "none")}, filepath.Join(dir, "none")},
		{"not a bench dir", []string{"report", "--matrix", dir, "--bench", dir}, dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := execute(t, append(tc.args, "--out", filepath.Join(dir, "out"))...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "\n", "one clear line")
		})
	}
	_, err := os.Stat(filepath.Join(dir, "out"))
	assert.ErrorIs(t, err, os.ErrNotExist, "bad input writes nothing")
}

// TestMatrixMismatchThenReport: a matrix with a deliberately wrong
// expectation exits 1 and still writes the matrix, which `locksim report`
// turns into the review page.
func TestMatrixMismatchThenReport(t *testing.T) {
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.yaml")
	require.NoError(t, os.WriteFile(wrong, []byte(wrongExpectationYAML), 0o644))
	out := filepath.Join(dir, "results")
	stdout, stderr, code := execute(t, "matrix", "--scenarios", wrong, "--algos", "setpx", "--out", out, "--json")
	require.Equal(t, exitMismatch, code, stderr)
	assert.Contains(t, stderr, "1 of 1 pairs differ")
	assert.Contains(t, stderr, "[1/1] wrong-expectation setpx unsafe ✗", "plain progress lines off a terminal")

	var res struct {
		Dir string `json:"dir"`
		matrix.Matrix
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	assert.Equal(t, matrix.Totals{Cells: 1, Differ: 1}, res.Totals)
	c := res.Cell("wrong-expectation", "setpx")
	require.NotNil(t, c)
	assert.Equal(t, "unsafe", c.Verdict)
	assert.Equal(t, 0, c.Agreed)
	assert.Equal(t, wrong, res.Scenarios[0].File)
	for _, f := range []string{matrix.FileMD, matrix.FileJSON, matrix.FileHTML} {
		assert.FileExists(t, filepath.Join(res.Dir, f))
	}

	stdout, stderr, code = execute(t, "report", "--matrix", filepath.Join(out, "matrix", "latest"), "--bench", "")
	require.Equal(t, exitOK, code, stderr)
	page := filepath.Join(out, "review", res.Stamp(), "index.html")
	assert.Contains(t, stdout, page)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "wrong-expectation")
	assert.Contains(t, string(html), "NOT AS EXPECTED")
	assert.Equal(t, 1, strings.Count(string(html), `src="data:image/png;base64,`))
	assert.FileExists(t, filepath.Join(out, "review", res.Stamp(), "index.md"))

	// --out is the results root, as on matrix: the matrix is read from it
	// and the page written under it.
	require.NoError(t, os.RemoveAll(filepath.Dir(page)))
	stdout, stderr, code = execute(t, "report", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, page)
	assert.Contains(t, stdout, "No lockbench run: there is none under "+filepath.Join(out, "lockbench"))
	assert.FileExists(t, page)
}

// TestTimeoutAndSeedMeanTheSame: on every command that runs or checks,
// --timeout bounds the command's work as a whole and --check-timeout the
// checker; --seed is the base seed on every command that draws.
func TestTimeoutAndSeedMeanTheSame(t *testing.T) {
	root := newRoot()
	for _, name := range []string{"run", "matrix", "check"} {
		cmd, _, err := root.Find([]string{name})
		require.NoError(t, err)
		timeout, check := cmd.Flags().Lookup("timeout"), cmd.Flags().Lookup("check-timeout")
		require.NotNil(t, timeout, name)
		require.NotNil(t, check, name)
		assert.Contains(t, timeout.Usage, "whole", name)
		assert.Contains(t, check.Usage, "checker", name)
		assert.Equal(t, "10s", check.DefValue, name)
	}
	for _, name := range []string{"run", "matrix"} {
		cmd, _, err := root.Find([]string{name})
		require.NoError(t, err)
		seed := cmd.Flags().Lookup("seed")
		require.NotNil(t, seed, name)
		assert.Contains(t, seed.Usage, "base seed", name)
	}
}

func TestCheckTimeoutFlags(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, code := execute(t, "run", "--algos", "setpx", "--duration", "200ms", "--json", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	var res jsonResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	dir := res.Runs[0].Dir
	_, stderr, code = execute(t, "check", dir, "--timeout", "1m", "--check-timeout", "5s")
	assert.Equal(t, exitOK, code, stderr)
	_, stderr, code = execute(t, "check", dir, "--check-timeout", "0s")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--check-timeout 0s")
}
