package node_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// judgeTiming runs a timing check up to three times. A run returns false
// when the host was too slow for it to tell right from wrong (a reply that
// came back after the moment it was meant to probe); such a run is repeated,
// never counted as a pass. Definite errors are reported inside the run.
func judgeTiming(t *testing.T, run func(attempt int) (judged bool)) {
	t.Helper()
	for attempt := 0; attempt < 3; attempt++ {
		if run(attempt) {
			return
		}
		t.Logf("attempt %d: host too slow to judge expiry timing; retrying", attempt)
	}
	t.Fatal("host too slow to judge expiry timing in 3 attempts")
}

// probeSlack is how late a probe's reply may come back and still say what
// the node held at the moment the probe was meant for.
const probeSlack = 5 * time.Millisecond

// expectExpiry sets key with PX ttl on node 0 and checks that it is present
// when probed at presentAt and gone when probed at goneAt (both measured
// from the SET), where the node clock's expiry should fall between them.
func expectExpiry(t *testing.T, cl redis.UniversalClient, ttl, presentAt, goneAt time.Duration) {
	t.Helper()
	ctx := context.Background()
	judgeTiming(t, func(attempt int) bool {
		key := fmt.Sprintf("k%d", attempt)
		sent := time.Now() // the key was written after this
		require.NoError(t, cl.Set(ctx, key, "v", ttl).Err())
		acked := time.Now() // and before this

		probe := sent.Add(presentAt)
		time.Sleep(time.Until(probe))
		n, err := cl.Exists(ctx, key).Result()
		require.NoError(t, err)
		if n == 0 {
			if late := time.Since(probe); late > probeSlack {
				return false // the reply may describe a later moment
			}
			t.Errorf("key gone %v after SET; want present until at least %v", time.Since(sent), presentAt)
			return true
		}

		time.Sleep(time.Until(acked.Add(goneAt)))
		// A late probe only makes the key more surely expired, so a key
		// still present here expired late: a definite failure.
		n, err = cl.Exists(ctx, key).Result()
		require.NoError(t, err)
		if n != 0 {
			t.Errorf("key still present %v after SET; want gone by %v", time.Since(acked), goneAt)
		}
		return true
	})
}

func TestPXKeyExpiresOnTime(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		_, cls := simtest.Cluster(t, b, 1)
		expectExpiry(t, cls[0], 100*time.Millisecond, 90*time.Millisecond, 105*time.Millisecond)
	})
}

func TestJumpClockExpiresEarly(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 2)
		ctx := context.Background()
		n := c.Node(0)
		cl := cls[0]
		require.NoError(t, cl.Set(ctx, "short", "v", 10*time.Second).Err())
		require.NoError(t, cl.Set(ctx, "long", "v", 20*time.Second).Err())
		require.NoError(t, cl.Set(ctx, "forever", "v", 0).Err())
		require.NoError(t, cls[1].Set(ctx, "other", "v", 10*time.Second).Err())

		before := n.(node.ClockController).Clock()
		require.NoError(t, n.(node.ClockController).JumpClock(11*time.Second))
		require.GreaterOrEqual(t, n.(node.ClockController).Clock().Sub(before), 11*time.Second, "node clock did not jump")

		require.Equal(t, int64(0), cl.Exists(ctx, "short").Val(), "key with TTL below the jump survived")
		require.Equal(t, int64(1), cl.Exists(ctx, "forever").Val(), "key without TTL lost")
		pttl, err := cl.PTTL(ctx, "long").Result()
		require.NoError(t, err)
		require.InDelta(t, 9*time.Second, pttl, float64(500*time.Millisecond), "TTL not shortened by the jump")
		require.Equal(t, int64(1), cls[1].Exists(ctx, "other").Val(), "a jump on node 0 touched node 1")

		require.Error(t, n.(node.ClockController).JumpClock(-time.Second), "backward jump accepted")
	})
}

func TestSetClockRateScalesExpiry(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 1)
		require.NoError(t, c.Node(0).(node.ClockController).SetClockRate(2))
		// At rate 2 a 200ms key lives 100ms of true time, and at rate 0.5
		// a 50ms key does. The redis backend applies the clock's effect on
		// TTLs every few ms, later still on a loaded host, which moves
		// expiry by |rate-1| times that delay, hence the wider bounds.
		presentAt, goneAt := 90*time.Millisecond, 105*time.Millisecond
		if b == node.BackendRedis {
			presentAt, goneAt = 80*time.Millisecond, 125*time.Millisecond
		}
		expectExpiry(t, cls[0], 200*time.Millisecond, presentAt, goneAt)

		require.NoError(t, c.Node(0).(node.ClockController).SetClockRate(0.5))
		expectExpiry(t, cls[0], 50*time.Millisecond, presentAt, goneAt)
		require.Error(t, c.Node(0).(node.ClockController).SetClockRate(-1))
	})
}

// A clock jump on a node that is not running reaches its keys once it runs
// again, as a real server would find its clock moved.
func TestJumpClockWhilePausedAppliesOnResume(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b node.Backend) {
		c, cls := simtest.Cluster(t, b, 1)
		ctx := context.Background()
		n := c.Node(0)
		require.NoError(t, cls[0].Set(ctx, "k", "v", 10*time.Second).Err())
		require.NoError(t, n.(node.Pauser).Pause())
		require.NoError(t, n.(node.ClockController).JumpClock(11*time.Second))
		require.NoError(t, n.(node.Pauser).Resume())
		require.Equal(t, int64(0), cls[0].Exists(ctx, "k").Val())
	})
}
