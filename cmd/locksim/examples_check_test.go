package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// examplesRuns holds run directories committed with the repository: their
// history.jsonl, verdict.json and scenario.yaml as a run wrote them.
const examplesRuns = "../../results/examples/runs"

// TestCheckCommittedRuns re-checks every committed run directory with
// locksim check and wants the verdicts its verdict.json records, check by
// check, and the run judged as it expected: what the checker and the
// played judgement decide over a history stays what they decided when
// the run was made, and check keeps reading run directories written by
// earlier versions of locksim.
func TestCheckCommittedRuns(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(examplesRuns, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "no run directories under %s", examplesRuns)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
			require.NoError(t, err)
			var saved struct {
				Verdict string `json:"verdict"`
				Checks  map[string]struct {
					Verdict string `json:"verdict"`
				} `json:"checks"`
			}
			require.NoError(t, json.Unmarshal(b, &saved))
			require.NotEmpty(t, saved.Checks, "%s records no checks", dir)

			stdout, stderr, code := execute(t, "check", "--json", dir)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			var got struct {
				Verdict    string            `json:"verdict"`
				Checks     map[string]string `json:"checks"`
				AsExpected bool              `json:"as_expected"`
				Unplayed   []string          `json:"unplayed"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			require.Equal(t, saved.Verdict, got.Verdict)
			savedChecks := map[string]string{}
			for name, c := range saved.Checks {
				savedChecks[name] = c.Verdict
			}
			require.Equal(t, savedChecks, got.Checks)
			require.True(t, got.AsExpected, "not as expected: %s", stdout)
			require.Empty(t, got.Unplayed)
		})
	}
}
