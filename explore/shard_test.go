package explore

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/shard"
	"github.com/locksim/locksim/vocab"
)

// engineEnv is the environment an engine gives shard i of n: GitLab CI's
// parallel jobs (1-based), a Slurm array --array=1-n (from 1), or a
// Kubernetes Indexed Job (0-based, the count passed as --shards).
func engineEnv(engine string, i, n int) (func(string) string, int) {
	env := map[string]string{}
	count := 0
	switch engine {
	case "gitlab":
		env[shard.EnvGitLabIndex], env[shard.EnvGitLabTotal] = fmt.Sprint(i+1), fmt.Sprint(n)
	case "slurm":
		env[shard.EnvSlurmID], env[shard.EnvSlurmCount], env[shard.EnvSlurmMin] = fmt.Sprint(i+1), fmt.Sprint(n), "1"
	case "kubernetes":
		env[shard.EnvK8sIndex], count = fmt.Sprint(i), n
	}
	return func(k string) string { return env[k] }, count
}

// causeSet is an exploration's findings as sets: each signature with its
// hits, and each cause (check, verdict, faults) with its signatures.
func causeSet(r *Report) (sigs, causes []string) {
	for _, v := range r.Violations {
		sigs = append(sigs, fmt.Sprintf("%s ×%d", v.Signature, v.Hits))
	}
	for _, c := range r.Causes {
		var names []string
		for _, n := range c.Violations {
			names = append(names, r.Violations[n-1].Signature)
		}
		sort.Strings(names)
		causes = append(causes, fmt.Sprintf("%s %s %s %v", c.Check, c.Verdict, c.Faults, names))
	}
	sort.Strings(sigs)
	sort.Strings(causes)
	return sigs, causes
}

// TestShardMergeEqualsWhole: n shards, each reading its shard from an
// engine's environment as it would under that engine, explore the
// schedules of one unsharded exploration between them (same seed, same
// runs, unguided draws: a guided draw is steered by its own shard's runs),
// and their merge finds the same signatures, with the same hits, and the
// same causes: a run in virtual time replays exactly.
func TestShardMergeEqualsWhole(t *testing.T) {
	base := Config{Algorithm: "setnx-expire", Kinds: []vocab.Kind{"crash-client", "pause-client"}, Runs: 48, Seed: 5,
		Unguided: true, Workers: 2, Duration: time.Second}
	whole, err := Explore(hostCtx(t), base)
	require.NoError(t, err)
	wantSigs, wantCauses := causeSet(whole)
	require.NotEmpty(t, wantCauses, "the exploration finds something to compare")
	for _, c := range []struct {
		engine string
		n      int
	}{{"gitlab", 1}, {"slurm", 3}, {"kubernetes", 8}} {
		t.Run(fmt.Sprintf("%s-%d", c.engine, c.n), func(t *testing.T) {
			var reps []*Report
			for i := range c.n {
				getenv, count := engineEnv(c.engine, i, c.n)
				s, engine, err := shard.FromEnv(getenv, count)
				require.NoError(t, err)
				require.Equal(t, c.engine, engine)
				require.Equal(t, shard.Shard{Index: i, Count: c.n}, s)
				cfg := base
				cfg.Shard, cfg.Shards = s.Index, s.Count
				rep, err := Explore(hostCtx(t), cfg)
				require.NoError(t, err)
				reps = append(reps, rep)
			}
			merged, err := Merge(reps)
			require.NoError(t, err)
			require.Len(t, merged, 1)
			m := merged[0]
			assert.Equal(t, whole.Runs, m.Runs)
			assert.Equal(t, whole.NotPlayed, m.NotPlayed)
			sigs, causes := causeSet(m)
			assert.Equal(t, wantSigs, sigs, "the signatures and their hits")
			assert.Equal(t, wantCauses, causes, "the causes")
			assert.Len(t, m.Parts, c.n)
			if c.n > 1 {
				_, err := Merge(reps[1:])
				require.ErrorIs(t, err, ErrMerge)
				assert.Contains(t, err.Error(), fmt.Sprintf("shard 0/%d missing", c.n))
			}
		})
	}
}

// Merge refuses shards of another build or configuration, naming the
// field, and a shard given twice.
func TestShardMergeRefuses(t *testing.T) {
	sh := func(i, n int) *Report {
		return &Report{Algorithm: "setpx", Shard: fmt.Sprintf("%d/%d", i, n), Version: "v1", Seed: 3, Planned: 100, Kinds: []string{"pause-client"}}
	}
	otherVersion, otherSeed, otherKinds := sh(1, 2), sh(1, 2), sh(1, 2)
	otherVersion.Version, otherSeed.Seed, otherKinds.Kinds = "v2", 4, []string{"delay"}
	for _, c := range []struct {
		reps []*Report
		want string
	}{
		{[]*Report{sh(0, 2), otherVersion}, `version "v1" in shard 0/2, "v2" in shard 1/2`},
		{[]*Report{sh(0, 2), otherSeed}, `seed "3" in shard 0/2, "4" in shard 1/2`},
		{[]*Report{sh(0, 2), otherKinds}, `kinds "pause-client" in shard 0/2, "delay" in shard 1/2`},
		{[]*Report{sh(0, 2), sh(0, 2)}, "shard 0/2 given twice"},
		{[]*Report{sh(0, 8), sh(1, 8), sh(2, 8), sh(4, 8), sh(5, 8), sh(6, 8), sh(7, 8)}, "setpx: shard 3/8 missing (have 7 of 8 shards)"},
		{[]*Report{sh(0, 2), sh(1, 3)}, "shard count 2 in shard 0/2, 3 in shard 1/3"},
	} {
		_, err := Merge(c.reps)
		require.ErrorIs(t, err, ErrMerge, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
	// Sessions (each whole) may differ in seed, not in build.
	a, b := sh(0, 1), sh(0, 1)
	b.Seed = 9
	_, err := Merge([]*Report{a, b})
	assert.NoError(t, err)
}
