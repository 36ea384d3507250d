package lock_test

// Tests of the redlock design. Helpers end in "Redlock" because other
// designs' test files share this package; the peer adapters' tests
// (peer_*_test.go) reuse them.

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/lock/locktest"
)

const (
	ttlRedlock   = 500 * time.Millisecond
	driftRedlock = 0.01
)

// newManualClockRedlock is a clock whose every Now() reading is step later
// than the one before, so the elapsed time a design measures between two
// readings is known exactly. Sleep just moves the clock.
func newManualClockRedlock(step time.Duration) *locktest.ManualClock {
	c := locktest.NewManualClock(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	c.SetStep(step)
	c.SetAdvanceOnSleep(true)
	return c
}

// nodesRedlock is n independent miniredis masters and a go-redis client to
// each.
type nodesRedlock struct {
	servers []*miniredis.Miniredis
	clients []*redis.Client
}

func newNodesRedlock(t *testing.T, n int) *nodesRedlock {
	t.Helper()
	ns := &nodesRedlock{}
	for range n {
		m := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: m.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		ns.servers = append(ns.servers, m)
		ns.clients = append(ns.clients, c)
	}
	return ns
}

func (ns *nodesRedlock) universal() []redis.UniversalClient {
	out := make([]redis.UniversalClient, len(ns.clients))
	for i, c := range ns.clients {
		out[i] = c
	}
	return out
}

// holding lists the nodes whose key holds value (read directly from the
// servers, so it works for closed nodes too).
func (ns *nodesRedlock) holding(key, value string) []int {
	var out []int
	for i, m := range ns.servers {
		if v, err := m.Get(key); err == nil && v == value {
			out = append(out, i)
		}
	}
	return out
}

// withKey lists the nodes where key exists at all.
func (ns *nodesRedlock) withKey(key string) []int {
	var out []int
	for i, m := range ns.servers {
		if m.Exists(key) {
			out = append(out, i)
		}
	}
	return out
}

func (ns *nodesRedlock) close(idx ...int) {
	for _, i := range idx {
		ns.servers[i].Close()
	}
}

func (ns *nodesRedlock) fastForward(d time.Duration) {
	for _, m := range ns.servers {
		m.FastForward(d)
	}
}

func newLockerRedlock(t *testing.T, name string, ns *nodesRedlock, o lock.Options) lock.Locker {
	t.Helper()
	if o.TTL == 0 {
		o.TTL = ttlRedlock
	}
	if o.Drift == 0 {
		o.Drift = driftRedlock
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = time.Second // generous: -race, a loaded machine and miniredis's Lua are slow; no test here is about the timeout
	}
	l, err := lock.New(name, ns.universal(), o)
	require.NoError(t, err)
	return l
}

func allRedlock(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// requireUnknownRedlock asserts an error that is neither success nor a
// definite refusal.
func requireUnknownRedlock(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.NotErrorIs(t, err, lock.ErrNotAcquired)
	require.NotErrorIs(t, err, lock.ErrNotHeld)
}

// lostReplyRedlock is a go-redis hook that lets SET reach the node and then
// loses its reply, as a cut link after the request would.
type lostReplyRedlock struct{ sets atomic.Int32 }

var errLostReplyRedlock = errors.New("reply lost (test)")

func (h *lostReplyRedlock) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *lostReplyRedlock) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *lostReplyRedlock) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "set" && err == nil {
			h.sets.Add(1)
			cmd.SetErr(errLostReplyRedlock)
			return errLostReplyRedlock
		}
		return err
	}
}

func TestRedlockRegistered(t *testing.T) {
	i, err := lock.Lookup("redlock")
	require.NoError(t, err)
	require.True(t, i.MultiNode && i.Watchdog && i.Extendable && i.Expires)
	require.False(t, i.DelUnlock || i.Peer || i.Fencing || i.ClientClock)
	ns := newNodesRedlock(t, 1)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	require.Equal(t, "redlock", l.Name())
	_, ok := l.(lock.Extender)
	require.True(t, ok)
}

func TestRedlockAcquireSetsAllNodesAndReleaseClearsThem(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	ctx := context.Background()

	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	require.True(t, lease.Expires())
	require.Equal(t, allRedlock(5), ns.holding("k", lease.Token))
	for _, m := range ns.servers {
		require.Equal(t, ttlRedlock, m.TTL("k"))
	}

	require.NoError(t, l.Release(ctx, lease))
	require.Empty(t, ns.withKey("k"))
	require.ErrorIs(t, l.Release(ctx, lease), lock.ErrNotHeld)
}

func TestRedlockSecondClientRefusedWhileHeld(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	a := newLockerRedlock(t, "redlock", ns, lock.Options{})
	b := newLockerRedlock(t, "redlock", ns, lock.Options{})
	ctx := context.Background()

	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)
	_, err = b.Acquire(ctx, "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	// b's unlock round is compare-and-delete: a's keys survive it.
	require.Equal(t, allRedlock(5), ns.holding("k", la.Token))

	require.NoError(t, a.Release(ctx, la))
	lb, err := b.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, allRedlock(5), ns.holding("k", lb.Token))
}

func TestRedlockMinorityOverlapIsRefused(t *testing.T) {
	// Another owner holds 3 of 5 nodes; the 2 this client gets are not a
	// majority, and it must give those 2 back.
	ns := newNodesRedlock(t, 5)
	for _, i := range []int{0, 1, 2} {
		require.NoError(t, ns.servers[i].Set("k", "other"))
	}
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.Equal(t, []int{0, 1, 2}, ns.holding("k", "other"))
	require.Equal(t, []int{0, 1, 2}, ns.withKey("k"))
}

// downNodesTTL is the lease of the tests with nodes down: dialing a closed
// node costs go-redis its dial retries, which on a loaded machine can
// take longer than the default TTL and spend the validity before the
// majority is counted; these tests count the majority, not the time.
const downNodesTTL = 10 * time.Second

func TestRedlockAcquiresWithTwoOfFiveNodesDown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	ns.close(1, 3)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{TTL: downNodesTTL})
	ctx := context.Background()

	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 4}, ns.holding("k", lease.Token))

	// Deleted on a majority: released, though two nodes gave no answer.
	require.NoError(t, l.Release(ctx, lease))
	require.Empty(t, ns.withKey("k"))
}

func TestRedlockReleaseWithoutMajorityReplyIsUnknown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)

	// 2 nodes delete, 3 do not answer: they may still hold a majority's
	// worth of our key.
	ns.close(0, 1, 2)
	requireUnknownRedlock(t, l.Release(ctx, lease))
	require.Equal(t, []int{0, 1, 2}, ns.withKey("k"))
}

func TestRedlockReleaseOfLapsedLeaseIsNotHeld(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)

	// Our key survives on a minority only (say 3 nodes restarted empty and
	// one was retaken): the lock was no longer ours, but the leftovers go.
	ns.servers[0].Del("k")
	ns.servers[1].Del("k")
	require.NoError(t, ns.servers[2].Set("k", "other"))
	require.ErrorIs(t, l.Release(ctx, lease), lock.ErrNotHeld)
	require.Equal(t, []int{2}, ns.withKey("k"))
	require.Equal(t, []int{2}, ns.holding("k", "other"))
}

func TestRedlockFailsWithThreeOfFiveNodesDownAndUnlocksTheRest(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	ns.close(0, 2, 4)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})

	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	// The two live nodes accepted the SET; the failed attempt removed it.
	require.Empty(t, ns.withKey("k"))
}

func TestRedlockUnlocksNodesWhoseReplyWasLost(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	hook := &lostReplyRedlock{}
	for _, i := range []int{1, 2, 3} {
		ns.clients[i].AddHook(hook)
	}
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})

	_, err := l.Acquire(context.Background(), "k")
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.EqualValues(t, 3, hook.sets.Load(), "the SETs whose replies were lost did reach the nodes")
	require.Empty(t, ns.withKey("k"), "the unlock round must also go to nodes that did not answer")
}

func TestRedlockQuorumDespiteTwoLostReplies(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	hook := &lostReplyRedlock{}
	ns.clients[0].AddHook(hook)
	ns.clients[4].AddHook(hook)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})

	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	require.Equal(t, allRedlock(5), ns.holding("k", lease.Token))
}

func TestRedlockValidityArithmetic(t *testing.T) {
	// validity = TTL - elapsed - (TTL*drift + 2ms); with TTL 500ms and drift
	// 0.01 the allowance is 7ms. The manual clock makes elapsed one step.
	allowance := ttlRedlock/100 + 2*time.Millisecond
	for _, tc := range []struct {
		name    string
		elapsed time.Duration
		ok      bool
	}{
		{"fast", 100 * time.Millisecond, true},
		{"one ms left", ttlRedlock - allowance - time.Millisecond, true},
		{"nothing left", ttlRedlock - allowance, false},
		{"slower than the TTL", ttlRedlock + 100*time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := newNodesRedlock(t, 5)
			clk := newManualClockRedlock(tc.elapsed)
			l := newLockerRedlock(t, "redlock", ns, lock.Options{Clock: clk})
			sent := clk.Peek()

			lease, err := l.Acquire(context.Background(), "k")
			if !tc.ok {
				require.ErrorIs(t, err, lock.ErrNotAcquired)
				require.Empty(t, ns.withKey("k"), "a too-slow acquire unlocks every node")
				return
			}
			require.NoError(t, err)
			start, validity := lease.Window()
			require.Equal(t, sent, start)
			require.Equal(t, ttlRedlock-tc.elapsed-allowance, validity)
			require.Equal(t, sent.Add(validity), lease.Deadline())
		})
	}
}

func TestRedlockExtendNeedsMajority(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	clk := newManualClockRedlock(10 * time.Millisecond)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{Clock: clk})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	ext := l.(lock.Extender)

	// Two nodes lost the key (say, restarted empty): 3 of 5 still extend.
	ns.servers[0].Del("k")
	ns.servers[1].Del("k")
	ns.fastForward(200 * time.Millisecond)
	clk.SetStep(20 * time.Millisecond)
	sent := clk.Peek()
	require.NoError(t, ext.Extend(ctx, lease))
	start, validity := lease.Window()
	require.Equal(t, sent, start)
	require.Equal(t, ttlRedlock-20*time.Millisecond-(ttlRedlock/100+2*time.Millisecond), validity)
	for _, i := range []int{2, 3, 4} {
		require.Equal(t, ttlRedlock, ns.servers[i].TTL("k"), "node %d", i)
	}
	require.Equal(t, []int{2, 3, 4}, ns.holding("k", lease.Token))

	// A third node loses it: 2 of 5 is no majority, a definite refusal, and
	// the window stays as it was.
	ns.servers[2].Del("k")
	require.ErrorIs(t, ext.Extend(ctx, lease), lock.ErrNotHeld)
	s2, v2 := lease.Window()
	require.Equal(t, start, s2)
	require.Equal(t, validity, v2)
}

func TestRedlockExtendWithNodesDownIsUnknown(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	// 2 nodes extend, 3 do not answer: they might have, so no verdict.
	ns.close(0, 1, 2)
	requireUnknownRedlock(t, l.(lock.Extender).Extend(ctx, lease))
}

func TestRedlockExtendTooSlowKeepsWindow(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	clk := newManualClockRedlock(10 * time.Millisecond)
	l := newLockerRedlock(t, "redlock", ns, lock.Options{Clock: clk})
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	start, validity := lease.Window()

	clk.SetStep(ttlRedlock)
	err = l.(lock.Extender).Extend(ctx, lease)
	requireUnknownRedlock(t, err)
	s2, v2 := lease.Window()
	require.Equal(t, start, s2)
	require.Equal(t, validity, v2)
}

func TestRedlockReleaseAnnouncesPointFirst(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	crash := errors.New("crashed (test)")
	var seen []lock.Point
	hook := func(_ context.Context, ev lock.Event) error {
		seen = append(seen, ev.Point)
		if ev.Point == vocab.PointBeforeReleaseCommand {
			return crash
		}
		return nil
	}
	l := newLockerRedlock(t, "redlock", ns, lock.Options{Hook: hook})
	lease, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)

	require.ErrorIs(t, l.Release(context.Background(), lease), crash)
	require.Equal(t, []lock.Point{vocab.PointBeforeReleaseCommand}, seen)
	require.Equal(t, allRedlock(5), ns.holding("k", lease.Token), "a client stopped before the release leaves its keys")
}

// watchdogsRedlock counts goroutines running a lease watchdog.
func watchdogsRedlock() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return bytes.Count(buf, []byte("lock.startWatchdog.func"))
}

func TestRedlockWatchdogKeepsLockPastThreeTTLs(t *testing.T) {
	const ttl = 300 * time.Millisecond
	for _, watchdog := range []bool{true, false} {
		t.Run(map[bool]string{true: "watchdog", false: "no watchdog"}[watchdog], func(t *testing.T) {
			ns := newNodesRedlock(t, 5)
			// miniredis expires keys only when told: move the nodes' time
			// along with real time.
			stopTime := make(chan struct{})
			var timeDone sync.WaitGroup
			timeDone.Go(func() {
				tick := time.NewTicker(5 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stopTime:
						return
					case <-tick.C:
						ns.fastForward(5 * time.Millisecond)
					}
				}
			})
			defer func() { close(stopTime); timeDone.Wait() }()

			var renewals atomic.Int32
			hook := func(_ context.Context, ev lock.Event) error {
				if ev.Point == vocab.PointWatchdogRenewed {
					renewals.Add(1)
				}
				return nil
			}
			before := watchdogsRedlock()
			l := newLockerRedlock(t, "redlock", ns, lock.Options{TTL: ttl, Watchdog: watchdog, Hook: hook, NodeTimeout: 100 * time.Millisecond})
			ctx := context.Background()
			lease, err := l.Acquire(ctx, "k")
			require.NoError(t, err)

			time.Sleep(3*ttl + ttl/2)
			if !watchdog {
				require.Empty(t, ns.withKey("k"), "without renewal the key expires")
				require.Equal(t, before, watchdogsRedlock())
				require.ErrorIs(t, l.Release(ctx, lease), lock.ErrNotHeld)
				return
			}
			require.Equal(t, allRedlock(5), ns.holding("k", lease.Token))
			require.Greater(t, renewals.Load(), int32(3))
			start, validity := lease.Window()
			require.Greater(t, start.Add(validity).Sub(lock.SystemClock{}.Now()), time.Duration(0), "the renewed window is still open")
			require.Equal(t, before+1, watchdogsRedlock())

			require.NoError(t, l.Release(ctx, lease))
			require.Equal(t, before, watchdogsRedlock(), "release stops the watchdog goroutine")
			n := renewals.Load()
			time.Sleep(ttl)
			require.Equal(t, n, renewals.Load(), "no renewal after release")
			require.Empty(t, ns.withKey("k"))
		})
	}
}

func TestRedlockBlockingWaitsForRelease(t *testing.T) {
	ns := newNodesRedlock(t, 5)
	a := newLockerRedlock(t, "redlock", ns, lock.Options{})
	clk := newManualClockRedlock(0)
	b := newLockerRedlock(t, "redlock", ns, lock.Options{Clock: clk})
	ctx := context.Background()
	la, err := a.Acquire(ctx, "k")
	require.NoError(t, err)

	tries := 0
	acquire := func(ctx context.Context, key string) (*lock.Lease, error) {
		tries++
		if tries == 3 {
			require.NoError(t, a.Release(ctx, la))
		}
		return b.Acquire(ctx, key)
	}
	lb, err := lock.Blocking(ctx, acquire, "k", lock.RetryPolicy{Interval: 10 * time.Millisecond, MaxTries: 5}, clk, nil)
	require.NoError(t, err)
	require.Equal(t, 3, tries)
	require.Equal(t, allRedlock(5), ns.holding("k", lb.Token))
}
