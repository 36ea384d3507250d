package lock_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// TestPointsAreListed: every point a design announces through its hook,
// on acquire, read acquire, release and a watchdog renewal, is in
// lock.Points, the list scenario files may name.
func TestPointsAreListed(t *testing.T) {
	forEach(t, 3, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		var mu sync.Mutex
		seen := map[lock.Point]bool{}
		hook := func(_ context.Context, ev lock.Event) error {
			mu.Lock()
			seen[ev.Point] = true
			mu.Unlock()
			return nil
		}
		ctx := context.Background()
		o := lock.Options{Hook: hook, TTL: 150 * time.Millisecond, Watchdog: info.Watchdog}
		l := newLocker(t, info, conns, "a", o)
		lease, err := l.Acquire(ctx, "k")
		require.NoError(t, err)
		if info.Watchdog {
			time.Sleep(120 * time.Millisecond) // a renewal or two (every TTL/3)
		}
		require.NoError(t, l.Release(ctx, lease))
		if rl, ok := l.(lock.ReadLocker); ok {
			r, err := rl.AcquireRead(ctx, "k")
			require.NoError(t, err)
			require.NoError(t, rl.Release(ctx, r))
		}
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, seen, "the design announced no point")
		for p := range seen {
			assert.True(t, slices.Contains(lock.Points, p), "%s announces %q, which lock.Points does not list", info.Name, p)
		}
	})
}
