package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

// TestBlockingWithoutIntervalDoesNotSpin: a policy that New never saw
// (a zero or negative interval, no bound on tries) still waits between
// refused attempts, so a caller's bad policy cannot hammer the node until
// its context ends.
func TestBlockingWithoutIntervalDoesNotSpin(t *testing.T) {
	for _, interval := range []time.Duration{0, -time.Second} {
		tries := 0
		refuse := func(context.Context, string) (*lock.Lease, error) {
			tries++
			return nil, lock.ErrNotAcquired
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := lock.Blocking(ctx, refuse, "k", lock.RetryPolicy{Interval: interval}, lock.SystemClock{}, nil)
		cancel()
		require.ErrorIs(t, err, lock.ErrNotAcquired)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		// at least 1 ms a round: about 50 tries; a spin makes thousands
		require.Less(t, tries, 200, "interval %v", interval)
	}
}
