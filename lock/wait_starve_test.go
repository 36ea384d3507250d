package lock_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// TestStarvedWaiterMutant runs the catalogue's lost unlock message with a
// notified waiter that never falls back to the holder's PTTL, less the
// scenario's requirement that client 1 acquires (the mutant never does:
// that is the finding), keeping the one that the release and its message
// came while client 1 was cut off. The probe
// after the run gets the lock (the key is gone), so only the judgement of
// the run's own clients can see that client 1 waited for ever while the
// lock was free: liveness must be unsafe and the run deadlock. The real
// waiter, on the same schedule, is safe: the check does not fire on a
// wait that ends within its patience.
func TestStarvedWaiterMutant(t *testing.T) {
	s, err := scenarios.Lookup("notify-message-lost")
	require.NoError(t, err)
	require.Len(t, s.Require, 2)
	require.Equal(t, "acquire", s.Require[1].Event)
	s.Require = s.Require[:1]
	for _, algo := range []string{"setpx", "fenced"} {
		t.Run(algo+"/real", func(t *testing.T) {
			o := execute(t, s, algo)
			assert.Equal(t, vocab.Safe, o.Checks[vocab.CheckLiveness], "the real waiter falls back")
			assert.Equal(t, vocab.Safe, o.Verdict)
		})
		t.Run(algo+"/mutant", func(t *testing.T) {
			defer lock.SetNoFallback(true)()
			o := execute(t, s, algo)
			assert.Equal(t, vocab.Unsafe, o.Checks[vocab.CheckLiveness], "a waiter that never wakes starves")
			assert.Equal(t, vocab.Deadlock, o.Verdict)
		})
	}
}

func execute(t *testing.T, s *scenarios.Scenario, algo string) run.Outcome {
	t.Helper()
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	o, err := run.Execute(ctx, s, algo, run.Options{Out: t.TempDir()})
	require.NoError(t, err)
	require.Empty(t, o.Unplayed, "the scenario played")
	return o
}
