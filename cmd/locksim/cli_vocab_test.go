package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shared vocabulary of the commands (docs/reliability.md#flags-every-command-shares):
// each shared flag has one name and one meaning on every command that has
// it, stdout carries results alone, every --json uses snake_case keys, and
// a typo is one line with "did you mean".

// tinyScenario is a fault-free scenario that runs in a blink in virtual time.
const tinyScenario = "name: tiny\nalgorithm: [setpx]\nclients: 1\nduration: 200ms\nhold: 5ms\nexpect:\n  \"*\": safe\n"

// TestSharedFlagsOneName: across the command tree, a shared flag is
// spelled one way (--algos, --parallel, --out, --out-dir) and its help
// says the same thing everywhere; the retired spellings are gone.
func TestSharedFlagsOneName(t *testing.T) {
	usage := map[string]map[string]string{} // flag -> command -> usage
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if usage[f.Name] == nil {
				usage[f.Name] = map[string]string{}
			}
			usage[f.Name][c.CommandPath()] = f.Usage
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	for _, retired := range []string{"algo", "workers"} {
		assert.Empty(t, usage[retired], "--%s is spelled --algos/--parallel on every command", retired)
	}
	for cmd, u := range usage["out"] {
		assert.True(t, strings.HasPrefix(u, "results root"), "%s --out: %q", cmd, u)
	}
	for cmd, u := range usage["out-dir"] {
		assert.Contains(t, u, "exactly this directory", cmd)
		assert.Contains(t, usage["out"][cmd], "results root", "%s has --out-dir beside --out", cmd)
	}
	for cmd, u := range usage["timeout"] {
		assert.Contains(t, u, "whole", "%s --timeout bounds the whole command: %q", cmd, u)
	}
	for cmd, u := range usage["parallel"] {
		assert.Contains(t, u, "runs at once", cmd)
	}
	for cmd, u := range usage["json"] {
		assert.Contains(t, u, "JSON", cmd)
	}
}

// snakeKey is a JSON key in the style every --json uses; keys that are
// data (a design's or scenario's name, "*", a status such as "n/a")
// may hold hyphens and slashes, a pinned version's name an @; none
// holds a capital letter.
var snakeKey = regexp.MustCompile(`^[a-z0-9_*][a-z0-9_*./:@-]*$`)

// jsonKeys checks that stdout is one JSON document and returns every
// object key in it that is not snake_case.
func badJSONKeys(t *testing.T, stdout string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var v any
	require.NoError(t, dec.Decode(&v), "stdout is JSON: %s", stdout)
	var rest any
	require.Error(t, dec.Decode(&rest), "stdout holds one JSON document and nothing else")
	var bad []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if !snakeKey.MatchString(k) {
					bad = append(bad, k)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	sort.Strings(bad)
	return bad
}

// TestCLIVocabulary runs every command that writes or prints JSON once
// with the shared flags and holds each to the same meaning.
func TestCLIVocabulary(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.yaml")
	require.NoError(t, os.WriteFile(tiny, []byte(tinyScenario), 0o644))
	root := filepath.Join(dir, "results")

	// A run, to re-check and to find under the root.
	stdout, stderr, code := executeVirtual(t, "run", tiny, "--out", root)
	require.Equal(t, exitOK, code, stderr)
	runs, _ := filepath.Glob(filepath.Join(root, "locksim", "tiny", "2*-setpx-s*"))
	require.Len(t, runs, 1, "run writes OUT/locksim/<scenario>/<stamp>-<design>-s<seed>")
	assert.Contains(t, stderr, "[1/1] tiny with setpx", "progress on stderr")
	assert.NotContains(t, stdout, "[1/1]", "stdout holds results alone")
	assert.Contains(t, stdout, runs[0], "the result line names the run directory")

	exploreDir := filepath.Join(dir, "exact-explore")
	for _, tc := range []struct {
		name string
		args []string
		glob string // where --out's results go, under root ("" for none)
	}{
		{"run", []string{"run", tiny, "--json", "--out", root}, "locksim/tiny/2*-setpx-s*"},
		// --algos setpx: with every design, the matrix starts a process
		// design's child, which makes this test process the subreaper of
		// the binaries later tests kill.
		{"matrix", []string{"matrix", "--scenarios", tiny, "--algos", "setpx", "--runs", "1", "--json", "--out", root}, "matrix/2*/matrix.json"},
		{"explore", []string{"explore", "--algos", "setpx", "--kinds", "none", "--runs", "3", "--duration", "200ms",
			"--confirm", "none", "--json", "--out", root}, "explore/2*-s0/setpx/explore.json"},
		{"explore --out-dir", []string{"explore", "--algos", "setpx", "--kinds", "none", "--runs", "2", "--duration", "200ms",
			"--confirm", "none", "--json", "--out-dir", exploreDir}, ""},
		{"explore merge", []string{"explore", "merge", exploreDir, "--json", "--out", root}, "explore/2*-merged/setpx/explore.json"},
		{"check", []string{"check", runs[0], "--json"}, ""},
		{"algos", []string{"algos", "--json"}, ""},
		{"list", []string{"list", "--json"}, ""},
		{"list --kinds", []string{"list", "--kinds", "--json"}, ""},
		{"list --points", []string{"list", "--points", "--json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := executeVirtual(t, tc.args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, badJSONKeys(t, stdout), "every key snake_case")
			if tc.glob != "" {
				got, _ := filepath.Glob(filepath.Join(root, tc.glob))
				assert.NotEmpty(t, got, "--out ROOT: results under ROOT/%s", tc.glob)
			}
		})
	}
	assert.FileExists(t, filepath.Join(exploreDir, "setpx", "explore.json"), "--out-dir: exactly that directory")

	// Everything under the root is in a command's own directory.
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Name())
	}
	assert.ElementsMatch(t, []string{"locksim", "matrix", "explore"}, kinds)
}

// TestDidYouMean: a mistyped scenario, design, flag or command is one
// line naming what was typed and the closest names, never a list of all.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "crash-holdr"}, `scenario "crash-holdr": neither a built-in nor a file (did you mean crash-holder?)`},
		{[]string{"run", "nosuch"}, `scenario "nosuch": neither a built-in nor a file (see 'locksim list')`},
		{[]string{"run", "--algos", "setpz"}, `unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"matrix", "--algos", "setpz"}, `--algos: unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"matrix", "--scenarios", "crash-holdr"}, `--scenarios: scenario "crash-holdr": neither a built-in nor a file (did you mean crash-holder?)`},
		{[]string{"explore", "--algos", "setpz"}, `--algos: unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"review", "--algos", "setpz"}, `--algos: unknown algorithm "setpz" (did you mean setpx?)`},
		{[]string{"matrix", "--paralel", "2"}, "unknown flag: --paralel (did you mean --parallel?)"},
		{[]string{"explore", "--workers", "2"}, "unknown flag: --workers"},
		{[]string{"run", "--algo", "setpx"}, "unknown flag: --algo (did you mean --algos?)"},
		{[]string{"run", "--ouf", "x"}, "unknown flag: --ouf (did you mean --out?)"},
		{[]string{"rn"}, `unknown command "rn" (did you mean run?)`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := execute(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(stderr)
			assert.NotContains(t, msg, "\n", "one line")
			assert.Contains(t, msg, tc.want)
			assert.Less(t, len(msg), 200, "a hint, not a list of every name")
		})
	}
}

// TestTimeoutMeansTheWholeCommand: --timeout bounds each long command's
// wall time; when it runs out what finished is kept, marked incomplete,
// and the exit code is 3.
func TestTimeoutMeansTheWholeCommand(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.yaml")
	require.NoError(t, os.WriteFile(long, []byte("name: long\nalgorithm: [setpx]\nclients: 1\nduration: 30s\nhold: 5ms\n"), 0o644))

	t.Run("run", func(t *testing.T) {
		out := filepath.Join(dir, "run")
		stdout, stderr, code := execute(t, "run", long, "--real-time", "--timeout", "300ms", "--json", "--out", out)
		assert.Equal(t, exitHarness, code, stderr)
		assert.Contains(t, stderr, "--timeout 300ms ran out")
		var res struct {
			Incomplete bool `json:"incomplete"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
		assert.True(t, res.Incomplete, "the JSON says the command did not finish")
		kept, _ := filepath.Glob(filepath.Join(out, "locksim", "long", "2*-setpx-s*"))
		assert.Len(t, kept, 1, "the run cut short is kept, marked incomplete")
	})
	t.Run("matrix", func(t *testing.T) {
		out := filepath.Join(dir, "matrix")
		_, stderr, code := execute(t, "matrix", "--scenarios", long, "--algos", "setpx", "--real-time", "--timeout", "300ms", "--out", out)
		assert.Equal(t, exitHarness, code, stderr)
		assert.Contains(t, stderr, "--timeout 300ms ran out")
		mx, _ := filepath.Glob(filepath.Join(out, "matrix", "2*", "matrix.json"))
		require.Len(t, mx, 1, "the matrix is written")
		b, err := os.ReadFile(mx[0])
		require.NoError(t, err)
		assert.Contains(t, string(b), `"incomplete": true`)
	})
	t.Run("check", func(t *testing.T) {
		out := filepath.Join(dir, "check")
		_, stderr, code := executeVirtual(t, "run", "--algos", "setpx", "--clients", "1", "--duration", "100ms", "--out", out)
		require.Equal(t, exitOK, code, stderr)
		runs, _ := filepath.Glob(filepath.Join(out, "locksim", "adhoc", "2*"))
		require.Len(t, runs, 1)
		_, stderr, code = execute(t, "check", runs[0], "--timeout", "1ns")
		assert.Equal(t, exitHarness, code, stderr)
		assert.Contains(t, stderr, "timeout")
	})
	t.Run("review", func(t *testing.T) {
		root := filepath.Join(dir, "review-root")
		_, stderr, code := execute(t, "review", "--algos", "setpx", "--runs", "1", "--timeout", "1ms", "--out", root)
		assert.Equal(t, exitHarness, code, stderr)
		kept, _ := filepath.Glob(filepath.Join(root, "review", "2*-incomplete", incompleteFile))
		assert.Len(t, kept, 1, "OUT/review/<stamp>-incomplete/ with %s", incompleteFile)
	})
}
