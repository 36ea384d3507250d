package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

func TestParseWaitVariant(t *testing.T) {
	for _, s := range []string{"poll:50ms", "poll:1ms", "notify"} {
		v, err := bench.ParseWaitVariant(s)
		require.NoError(t, err)
		require.Equal(t, s, v.String())
	}
	for _, s := range []string{"poll", "poll:-1ms", "poll:soon", "notified", ""} {
		_, err := bench.ParseWaitVariant(s)
		require.Error(t, err, s)
	}
}

// TestRunWaitCountsEveryClientsCycles: both ways of waiting complete
// cycles on the hot key, the per-client counts add up to the total, and
// miniredis, which keeps no commandstats, gives no command count rather
// than a made-up one.
func TestRunWaitCountsEveryClientsCycles(t *testing.T) {
	rep, err := bench.RunWait(context.Background(), bench.WaitConfig{
		Backend:  sim.BackendMiniredis,
		Variants: []bench.WaitVariant{{Wait: lock.WaitPoll, Interval: time.Millisecond}, {Wait: lock.WaitNotify}},
		Clients:  []int{3}, Duration: 300 * time.Millisecond, Rounds: 1, Hold: time.Millisecond,
	})
	require.NoError(t, err)
	require.Len(t, rep.Results, 2)
	for _, r := range rep.Results {
		require.Positive(t, r.Cycles, r.Wait)
		require.LessOrEqual(t, r.MinPerClient*3, r.Cycles, r.Wait)
		require.GreaterOrEqual(t, r.MaxPerClient*3, r.Cycles, r.Wait)
		require.Positive(t, r.AcquireP99Ms, r.Wait)
		require.LessOrEqual(t, r.AcquireP50Ms, r.AcquireP99Ms, r.Wait)
		require.Equal(t, -1.0, r.CommandsPerLock, r.Wait)
	}
}

func TestRunWaitRefusesADesignThatCannotNotify(t *testing.T) {
	_, err := bench.RunWait(context.Background(), bench.WaitConfig{Backend: sim.BackendMiniredis, Algorithm: "lua-setnx"})
	require.ErrorIs(t, err, bench.ErrConfig)
	require.ErrorContains(t, err, "lua-setnx: cannot wait by notification")
}
