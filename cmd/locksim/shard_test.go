package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/shard"
)

// clearShardEnv unsets every engine's shard variables for the test, so
// that a test run inside one of those engines reads only what it sets.
func clearShardEnv(t *testing.T) {
	for _, k := range []string{shard.EnvK8sIndex, shard.EnvShards, shard.EnvGitLabIndex, shard.EnvGitLabTotal,
		shard.EnvSlurmID, shard.EnvSlurmCount, shard.EnvSlurmMin, shard.EnvSlurmStep} {
		t.Setenv(k, "")
	}
}

// --shard auto with no engine, engines that disagree or an index out of
// range is bad input in one line, on explore and on matrix.
func TestShardAutoBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no engine", nil, []string{"--shard", "auto"}, "--shard auto: no engine's shard in the environment"},
		{"k8s without a count", map[string]string{shard.EnvK8sIndex: "2"}, []string{"--shard", "auto"}, "give --shards N"},
		{"k8s out of range", map[string]string{shard.EnvK8sIndex: "4"}, []string{"--shard", "auto", "--shards", "4"}, "JOB_COMPLETION_INDEX=4: out of range"},
		{"engines disagree", map[string]string{shard.EnvGitLabIndex: "1", shard.EnvGitLabTotal: "2", shard.EnvSlurmID: "1", shard.EnvSlurmCount: "2"},
			[]string{"--shard", "auto"}, "gitlab says shard 0/2, slurm says 1/2"},
		{"shards disagrees with i/n", nil, []string{"--shard", "1/4", "--shards", "3"}, "--shards 3: --shard 1/4 says 4"},
		{"zero shards", nil, []string{"--shard", "auto", "--shards", "0"}, "--shards 0: at least 1"},
	} {
		for _, cmd := range [][]string{{"explore", "--algos", "setpx"}, {"matrix", "--scenarios", "crash-holder"}} {
			t.Run(tc.name+" "+cmd[0], func(t *testing.T) {
				clearShardEnv(t)
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				_, stderr, code := execute(t, append(append([]string{}, cmd...), tc.args...)...)
				assert.Equal(t, exitUsage, code, stderr)
				assert.Contains(t, stderr, tc.want)
				assert.NotContains(t, stderr, "\n", "one clear line")
			})
		}
	}
}

// matrix merge refuses shards with one missing, naming it, with exit 2.
func TestMatrixMergeMissingShard(t *testing.T) {
	var dirs []string
	for i := range 2 {
		d := t.TempDir()
		body := fmt.Sprintf(`{"runs":1,"shard":"%d/3","algorithms":["setpx"],"scenarios":[{"name":"crash-holder"}],`+
			`"cells":[{"scenario":"crash-holder","algorithm":"setpx","status":"other-shard"}]}`, i)
		require.NoError(t, os.WriteFile(filepath.Join(d, "matrix.json"), []byte(body), 0o644))
		dirs = append(dirs, d)
	}
	_, stderr, code := execute(t, append([]string{"matrix", "merge", "--out", t.TempDir()}, dirs...)...)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "shard 2/3 missing")
	assert.NotContains(t, stderr, "\n", "one clear line")
}

// The review page takes a merged matrix, not one shard of it.
func TestReportRefusesAShardMatrix(t *testing.T) {
	d := t.TempDir()
	body := `{"runs":1,"shard":"1/4","algorithms":["setpx"],"scenarios":[{"name":"crash-holder"}],` +
		`"cells":[{"scenario":"crash-holder","algorithm":"setpx","status":"other-shard"}]}`
	require.NoError(t, os.WriteFile(filepath.Join(d, "matrix.json"), []byte(body), 0o644))
	_, stderr, code := execute(t, "report", "--matrix", d, "--bench", "", "--out", t.TempDir())
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "is shard 1/4 of a matrix: join the shards first (locksim matrix merge)")
}

// Two shards of an exploration started as GitLab CI starts them
// (--shard auto) merge into one summary with the runs of both; either
// alone is refused as a missing shard.
func TestExploreShardAutoMerge(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		clearShardEnv(t)
		t.Setenv(shard.EnvGitLabIndex, fmt.Sprint(i+1))
		t.Setenv(shard.EnvGitLabTotal, "2")
		out := filepath.Join(dir, fmt.Sprint("shard-", i))
		_, stderr, code := executeVirtual(t, "explore", "--algos", "setpx", "--kinds", "none", "--runs", "10",
			"--duration", "500ms", "--confirm", "none", "--shard", "auto", "--out-dir", out)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, fmt.Sprintf("shard %d/2 from the gitlab environment", i))
		shards = append(shards, out)
	}
	stdout, stderr, code := execute(t, "explore", "merge", shards[0], shards[1], "--out-dir", filepath.Join(dir, "merged"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "setpx: 10 runs")
	summary, err := os.ReadFile(filepath.Join(dir, "merged", "setpx", "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "Merged from 2 shards")

	_, stderr, code = execute(t, "explore", "merge", shards[1], "--out-dir", filepath.Join(dir, "one"))
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "setpx: shard 0/2 missing (have 1 of 2 shards)")
	assert.NoDirExists(t, filepath.Join(dir, "one"))
}
