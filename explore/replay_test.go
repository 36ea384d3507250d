package explore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// replayRuns and replayNeed are explore's rule for a finding: it fails
// its check again in 8 of 10 reruns (seeds seed..seed+9).
const replayRuns, replayNeed = 10, 8

// TestShrunkFilesReplay replays files that explore wrote, as written, the
// way a user would with locksim run FILE: each must fail the check its
// expect names in at least 8 of 10 runs, in virtual time and, in CI's
// catalogue step, on redis-server in real time. The files are explore's
// output for the failures it is known to find: setpx's claim broken by a
// failover and by a restart without data, redlock's by node clock jumps.
// A file that replays on one backend only (a failover mode left to the
// backend's default) fails here.
func TestShrunkFilesReplay(t *testing.T) {
	files, err := filepath.Glob("testdata/replay/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	backends := []sim.Backend{sim.BackendMiniredis}
	if os.Getenv("LOCKSIM_CATALOGUE") == "full" {
		simtest.RequireRedisServer(t)
		backends = append(backends, sim.BackendRedis)
	}
	for _, file := range files {
		for _, backend := range backends {
			t.Run(filepath.Base(file)+"/"+string(backend), func(t *testing.T) {
				s, err := scenarios.LoadFile(file)
				require.NoError(t, err)
				algo := s.Algorithms()[0]
				exp, ok := s.Expect(algo)
				require.True(t, ok, "explore writes an expect")
				require.Len(t, exp.Checks, 1, "explore's expect names the check that failed")
				var check string
				for c := range exp.Checks {
					check = c
				}
				ctx := context.Background()
				if backend == sim.BackendMiniredis {
					ctx = vtime.NewContext(ctx, vtime.ForTest(t))
				}
				seed := *s.Seed
				failed := 0
				for i := range uint64(replayRuns) {
					r, err := scenarios.LoadFile(file)
					require.NoError(t, err)
					require.NoError(t, r.Override(scenarios.Overrides{Backend: string(backend), Seed: ptr(seed + i)}))
					o, err := run.Execute(ctx, r, algo, run.Options{Out: t.TempDir()})
					require.NoError(t, err)
					if o.Checks[check] == vocab.Unsafe {
						failed++
					}
				}
				assert.GreaterOrEqual(t, failed, replayNeed, "%s failed %s in %d of %d runs on %s", filepath.Base(file), check, failed, replayRuns, backend)
				t.Logf("%s: %s unsafe in %d/%d on %s", filepath.Base(file), check, failed, replayRuns, backend)
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }
