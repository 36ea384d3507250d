package matrix_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/shard"
	"github.com/locksim/locksim/vtime"
)

// pairVerdicts is a matrix as its pairs' outcomes: per cell its status,
// verdict, agreement and each run's seed, verdict and checks.
func pairVerdicts(m matrix.Matrix) []string {
	var out []string
	for _, c := range m.Cells {
		line := fmt.Sprintf("%s × %s: %s %s %d/%v", c.Scenario, c.Algorithm, c.Status, c.Verdict, c.Agreed, c.AsExpected)
		for _, r := range c.Runs {
			line += fmt.Sprintf(" [run %d seed %d %s %v]", r.Run, r.Seed, r.Verdict, r.Checks)
		}
		out = append(out, line)
	}
	return out
}

// TestShardMergeEqualsWhole: the shards of a matrix, run in virtual time
// (where a run replays exactly) and merged, give the pairs, runs and
// verdicts of the unsharded matrix, for 1, 3 and 8 shards; the merged
// directory reads back and carries every shard's machine facts.
func TestShardMergeEqualsWhole(t *testing.T) {
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	seed := uint64(7)
	cfg := func(out string, s shard.Shard) matrix.Config {
		return matrix.Config{
			Scenarios:  builtins(t, "crash-holder", "gc-pause-after-check", "unlock-after-expiry"),
			Algorithms: []string{"setpx", "fenced"},
			Runs:       2, Seed: &seed, Out: out, Shard: s,
		}
	}
	whole, err := matrix.Run(ctx, cfg(t.TempDir(), shard.All))
	require.NoError(t, err)
	want := pairVerdicts(whole)
	for _, n := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			runs := 0
			for i := range n {
				m, err := matrix.Run(ctx, cfg(filepath.Join(root, fmt.Sprint(i)), shard.Shard{Index: i, Count: n}))
				require.NoError(t, err)
				if n > 1 {
					assert.Equal(t, fmt.Sprintf("%d/%d", i, n), m.Shard)
				}
				for _, c := range m.Cells {
					runs += len(c.Runs)
				}
				dirs = append(dirs, m.Dir)
			}
			assert.Equal(t, whole.Totals.Cells*whole.Runs, runs, "every run made once over the shards")
			merged, err := matrix.ReadShards(dirs)
			require.NoError(t, err)
			assert.Equal(t, want, pairVerdicts(merged))
			assert.Equal(t, whole.Totals, merged.Totals)
			require.Len(t, merged.Parts, n)
			for _, p := range merged.Parts {
				assert.NotEmpty(t, p.Machine)
			}
			require.NoError(t, matrix.WriteMerged(&merged, filepath.Join(root, "merged")))
			back, err := matrix.Read(merged.Dir)
			require.NoError(t, err)
			assert.Equal(t, want, pairVerdicts(back))
			for _, c := range back.Cells {
				for _, r := range c.Runs {
					assert.DirExists(t, filepath.Join(back.Dir, filepath.FromSlash(r.Dir)), "the merged matrix holds its runs")
				}
			}
		})
	}
}

// Merge refuses what is not the shards of one matrix, in one line naming
// the field or the missing shard.
func TestShardMergeRefuses(t *testing.T) {
	seed := uint64(1)
	shardOf := func(i, n int, dir string) matrix.Matrix {
		return matrix.Matrix{Dir: dir, Runs: 1, Seed: &seed, Version: "v1", Algorithms: []string{"setpx"},
			Scenarios: []matrix.Row{{Name: "crash-holder"}}, Shard: fmt.Sprintf("%d/%d", i, n),
			Cells: []matrix.Cell{{Scenario: "crash-holder", Algorithm: "setpx", Status: matrix.CellElsewhere}}}
	}
	other := shardOf(1, 3, "b")
	other.Version = "v2"
	otherRuns := shardOf(1, 3, "b")
	otherRuns.Runs = 2
	for _, c := range []struct {
		name string
		ms   []matrix.Matrix
		want string
	}{
		{"missing", []matrix.Matrix{shardOf(0, 8, "a"), shardOf(1, 8, "b"), shardOf(2, 8, "c"), shardOf(4, 8, "e"), shardOf(5, 8, "f"), shardOf(6, 8, "g"), shardOf(7, 8, "h")},
			"shard 3/8 missing (have 7 of 8 shards)"},
		{"twice", []matrix.Matrix{shardOf(0, 2, "a"), shardOf(0, 2, "b")}, "shard 0/2 given twice: a and b"},
		{"version", []matrix.Matrix{shardOf(0, 3, "a"), other}, `version "v1" in a, "v2" in b`},
		{"runs", []matrix.Matrix{shardOf(0, 3, "a"), otherRuns}, `runs "1" in a, "2" in b`},
		{"count", []matrix.Matrix{shardOf(0, 3, "a"), shardOf(1, 4, "b")}, "shard count 3 in a, 4 in b"},
	} {
		_, err := matrix.Merge(c.ms)
		require.ErrorIs(t, err, matrix.ErrMerge, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
}
