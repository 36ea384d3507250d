package lock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/lock/locktest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// The conformance table runs every design through the same contract on every
// backend: miniredis always, a real redis-server when installed (required in
// CI). Where a design breaks the contract by design (DEL unlock, no TTL), the
// test asserts the flaw, so a design that silently changed would fail.

const confTTL = 2 * time.Second // long enough that nothing expires by accident

// newConfClock is a clock the test moves by hand (for designs that compare
// client timestamps).
func newConfClock() *locktest.ManualClock {
	return locktest.NewManualClock(time.Unix(1_800_000_000, 0))
}

// forEach runs f for every design on every backend.
func forEach(t *testing.T, nodes int, f func(t *testing.T, info lock.Info, cl *sim.Cluster, conns []redis.UniversalClient)) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		for _, info := range lock.Algorithms() {
			t.Run(info.Name, func(t *testing.T) {
				n := 1
				if info.MultiNode {
					n = nodes
				}
				cfg := sim.ClusterConfig{Backend: b, Nodes: n}
				if info.NeedsReplica {
					// WAIT needs a replica to acknowledge; Sentinel is not
					// what this table tests.
					cfg.Replicas = 1
					if b == sim.BackendRedis {
						cfg.Failover.Mode = sim.FailoverDirect
					}
				}
				cl, conns := simtest.ClusterWith(t, cfg)
				f(t, info, cl, conns)
			})
		}
	})
}

func newLocker(t *testing.T, info lock.Info, conns []redis.UniversalClient, owner string, o lock.Options) lock.Locker {
	t.Helper()
	if o.TTL == 0 {
		o.TTL = confTTL
	}
	if o.NodeTimeout == 0 {
		// Far from any design's default (TTL/10, redsync's 5%): a loaded
		// machine must not turn a slow reply into a failed acquire in
		// tests that are not about the timeout.
		o.NodeTimeout = time.Second
	}
	o.Owner = owner
	l, err := lock.New(info.Name, conns, o)
	require.NoError(t, err)
	require.Equal(t, info.Name, l.Name())
	return l
}

func TestConformanceAcquireRelease(t *testing.T) {
	forEach(t, 5, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		ctx := context.Background()
		clk := newConfClock()
		a := newLocker(t, info, conns, "a", lock.Options{Clock: clk})
		b := newLocker(t, info, conns, "b", lock.Options{Clock: clk})

		la, err := a.Acquire(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, "k", la.Key)
		assert.NotEmpty(t, la.Token)
		assert.Equal(t, info.Expires, la.Expires(), "a lease expires iff the design has a TTL")

		_, err = b.Acquire(ctx, "k")
		require.ErrorIs(t, err, lock.ErrNotAcquired, "a second owner must be refused while the lock is held")

		require.NoError(t, a.Release(ctx, la))
		lb, err := b.Acquire(ctx, "k")
		require.NoError(t, err, "released lock must be free")
		require.NoError(t, b.Release(ctx, lb))
	})
}

func TestConformanceValidity(t *testing.T) {
	forEach(t, 5, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		if !info.Expires {
			t.Skip(info.Name + " has no TTL, so no validity")
		}
		clk := newConfClock()
		l := newLocker(t, info, conns, "a", lock.Options{Clock: clk, Drift: 0.01})
		lease, err := l.Acquire(context.Background(), "k")
		require.NoError(t, err)
		start, v := lease.Window()
		// The test clock stands still, so elapsed is 0: validity is exactly the
		// TTL less the drift allowance, plus 2 ms for our Redlock, as the Redis
		// docs have it (redsync v4.18.0 leaves the 2 ms out).
		want := lock.Validity(confTTL, 0, 0.01)
		if info.MultiNode && !info.Peer {
			want = lock.RedlockValidity(confTTL, 0, 0.01)
		}
		assert.Equal(t, clk.Now(), start)
		assert.Equal(t, want, v)
		assert.Equal(t, want, lease.Remaining(clk.Now()))
		clk.Advance(want + time.Millisecond)
		assert.Negative(t, lease.Remaining(clk.Now()), "a lease is spent once its validity passed on the client's clock")
		require.NoError(t, l.Release(context.Background(), lease))
	})
}

func TestConformanceContention(t *testing.T) {
	const workers, rounds = 6, 8
	forEach(t, 3, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		if info.Name == "naive" {
			t.Skip("naive (EXISTS then SET) is racy without any fault: scenario race-exists-set shows it")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var inside, maxInside, done atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			l := newLocker(t, info, conns, fmt.Sprintf("w%d", w), lock.Options{Retry: lock.RetryPolicy{Interval: 2 * time.Millisecond}})
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					lease, err := lock.Blocking(ctx, l.Acquire, "hot", lock.RetryPolicy{Interval: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}, lock.SystemClock{}, nil)
					if err != nil {
						errs <- err
						return
					}
					n := inside.Add(1)
					for m := maxInside.Load(); n > m && !maxInside.CompareAndSwap(m, n); m = maxInside.Load() {
					}
					time.Sleep(time.Millisecond)
					inside.Add(-1)
					if err := l.Release(ctx, lease); err != nil {
						errs <- err
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		assert.Equal(t, int64(workers*rounds), done.Load())
		assert.Equal(t, int64(1), maxInside.Load(), "exactly one holder at a time")
	})
}

// expire makes the lock's expiry pass: node clocks jump for TTL designs that
// Redis expires; designs that compare client timestamps need the client's
// clock moved instead.
func expire(t *testing.T, info lock.Info, cl *sim.Cluster, clk *locktest.ManualClock) {
	t.Helper()
	if info.ClientClock {
		clk.Advance(confTTL + 2*time.Second) // past the TTL and the 1 s tolerance
		return
	}
	for _, n := range cl.Nodes() {
		require.NoError(t, n.(node.ClockController).JumpClock(confTTL+time.Second))
	}
}

func TestConformanceExpiryFollowsNodeClock(t *testing.T) {
	forEach(t, 5, func(t *testing.T, info lock.Info, cl *sim.Cluster, conns []redis.UniversalClient) {
		ctx := context.Background()
		clk := newConfClock()
		a := newLocker(t, info, conns, "a", lock.Options{Clock: clk})
		b := newLocker(t, info, conns, "b", lock.Options{Clock: clk})
		_, err := a.Acquire(ctx, "k")
		require.NoError(t, err)
		expire(t, info, cl, clk)
		lb, err := b.Acquire(ctx, "k")
		if !info.Expires {
			require.ErrorIs(t, err, lock.ErrNotAcquired, "a lock without TTL never frees itself")
			return
		}
		require.NoError(t, err, "an expired lock must be free")
		require.NoError(t, b.Release(ctx, lb))
	})
}

func TestConformanceForeignRelease(t *testing.T) {
	forEach(t, 5, func(t *testing.T, info lock.Info, cl *sim.Cluster, conns []redis.UniversalClient) {
		if !info.Expires {
			t.Skip(info.Name + " never expires, so its lease is never retaken")
		}
		ctx := context.Background()
		clk := newConfClock()
		a := newLocker(t, info, conns, "a", lock.Options{Clock: clk})
		b := newLocker(t, info, conns, "b", lock.Options{Clock: clk})
		c := newLocker(t, info, conns, "c", lock.Options{Clock: clk})
		la, err := a.Acquire(ctx, "k")
		require.NoError(t, err)
		expire(t, info, cl, clk)
		lb, err := b.Acquire(ctx, "k")
		require.NoError(t, err)

		err = a.Release(ctx, la) // a's lease expired: the lock is b's now
		if info.DelUnlock {
			require.NoError(t, err, "the DEL unlock does not look at the owner (the documented flaw)")
			lc, err := c.Acquire(ctx, "k")
			require.NoError(t, err, "after the stale DEL a third client gets the lock b still believes it holds")
			_ = c.Release(ctx, lc)
			return
		}
		require.ErrorIs(t, err, lock.ErrNotHeld, "a stale lease must not release another owner's lock")
		_, err = c.Acquire(ctx, "k")
		require.ErrorIs(t, err, lock.ErrNotAcquired, "b must still hold the lock")
		require.NoError(t, b.Release(ctx, lb))
	})
}

func TestConformanceTokensUnique(t *testing.T) {
	forEach(t, 3, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		switch {
		case info.Reentrant:
			t.Skip("reentrant leases carry the owner id, shared by design by nested holds")
		case info.ClientClock:
			t.Skip("setnx-getset stores the expiry timestamp, not a unique token (the article's design)")
		}
		ctx := context.Background()
		l := newLocker(t, info, conns, "a", lock.Options{})
		seen := map[string]bool{}
		var fences []int64
		for range 50 {
			lease, err := l.Acquire(ctx, "k")
			require.NoError(t, err)
			assert.False(t, seen[lease.Token], "token %q repeated", lease.Token)
			seen[lease.Token] = true
			fences = append(fences, lease.Fence)
			require.NoError(t, l.Release(ctx, lease))
		}
		if info.Fencing {
			for i := 1; i < len(fences); i++ {
				assert.Greater(t, fences[i], fences[i-1], "fencing tokens must strictly grow")
			}
		}
	})
}

func TestConformanceReentrant(t *testing.T) {
	forEach(t, 3, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		ctx := context.Background()
		a := newLocker(t, info, conns, "a", lock.Options{})
		b := newLocker(t, info, conns, "b", lock.Options{})
		first, err := a.Acquire(ctx, "k")
		require.NoError(t, err)
		_, err = a.Acquire(ctx, "k")
		if !info.Reentrant {
			require.ErrorIs(t, err, lock.ErrNotAcquired, "a non-reentrant lock refuses its own holder")
			require.NoError(t, a.Release(ctx, first))
			return
		}
		require.NoError(t, err)
		third, err := a.Acquire(ctx, "k")
		require.NoError(t, err)
		for i := 0; i < 3; i++ {
			_, err = b.Acquire(ctx, "k")
			require.ErrorIs(t, err, lock.ErrNotAcquired, "held at depth %d", 3-i)
			require.NoError(t, a.Release(ctx, third))
		}
		lb, err := b.Acquire(ctx, "k")
		require.NoError(t, err, "three releases unwind three holds")
		err = a.Release(ctx, first)
		require.ErrorIs(t, err, lock.ErrNotHeld, "a foreign unlock is refused")
		require.NoError(t, b.Release(ctx, lb))
	})
}

func TestConformanceReadWrite(t *testing.T) {
	forEach(t, 3, func(t *testing.T, info lock.Info, _ *sim.Cluster, conns []redis.UniversalClient) {
		if !info.ReadWrite {
			t.Skip(info.Name + " is a mutex")
		}
		ctx := context.Background()
		r1 := newLocker(t, info, conns, "r1", lock.Options{}).(lock.ReadLocker)
		r2 := newLocker(t, info, conns, "r2", lock.Options{}).(lock.ReadLocker)
		w := newLocker(t, info, conns, "w", lock.Options{}).(lock.ReadLocker)

		l1, err := r1.AcquireRead(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, lock.Shared, l1.Mode)
		l2, err := r2.AcquireRead(ctx, "k")
		require.NoError(t, err, "readers share")
		_, err = w.Acquire(ctx, "k")
		require.ErrorIs(t, err, lock.ErrNotAcquired, "a writer waits for readers")
		e1, e2 := r1.Release(ctx, l1), r2.Release(ctx, l2)
		if info.SharedRead {
			// One reader's unlock removed the shared hold: the other finds
			// nothing left to release (the flaw scenario 23 turns unsafe).
			assert.True(t, (e1 == nil) != (e2 == nil), "exactly one release finds the shared hold: %v / %v", e1, e2)
			for _, e := range []error{e1, e2} {
				if e != nil {
					require.ErrorIs(t, e, lock.ErrNotHeld)
				}
			}
		} else {
			require.NoError(t, e1)
			require.NoError(t, e2)
		}

		lw, err := w.Acquire(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, lock.Exclusive, lw.Mode)
		_, err = r1.AcquireRead(ctx, "k")
		require.ErrorIs(t, err, lock.ErrNotAcquired, "a reader waits for the writer")
		require.NoError(t, w.Release(ctx, lw))
	})
}

func TestConformanceRedlockQuorum(t *testing.T) {
	forEach(t, 5, func(t *testing.T, info lock.Info, cl *sim.Cluster, conns []redis.UniversalClient) {
		if !info.MultiNode {
			t.Skip(info.Name + " uses one node")
		}
		ctx := context.Background()
		l := newLocker(t, info, conns, "a", lock.Options{TTL: time.Second, NodeTimeout: 100 * time.Millisecond})
		nodes := cl.Nodes()
		require.NoError(t, nodes[0].(node.ProcessController).Kill())
		require.NoError(t, nodes[1].(node.ProcessController).Kill())
		lease, err := l.Acquire(ctx, "k")
		require.NoError(t, err, "3 of 5 nodes are a majority")
		require.NoError(t, l.Release(ctx, lease))

		require.NoError(t, nodes[2].(node.ProcessController).Kill())
		_, err = l.Acquire(ctx, "k")
		require.Error(t, err, "2 of 5 nodes are not a majority")
		assert.True(t, errors.Is(err, lock.ErrNotAcquired), "a failed quorum is a definite refusal: %v", err)
		for _, n := range nodes[3:] {
			c := redis.NewClient(&redis.Options{Addr: n.Addr()})
			exists, err := c.Exists(ctx, "k").Result()
			_ = c.Close()
			require.NoError(t, err)
			assert.Zero(t, exists, "a failed acquire unlocks every node it reached")
		}
	})
}
