package lock_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// notifyDesigns are the designs whose release can publish the unlock.
var notifyDesigns = []string{"setpx", "reentrant", "fenced", "rwlock-counted"}

func TestWaitNotifyIsOfferedByTheScriptedDesignsOnly(t *testing.T) {
	_, client := newRedisStrings(t)
	for _, i := range lock.Algorithms() {
		_, err := lock.New(i.Name, []redis.UniversalClient{client()}, lock.Options{Wait: lock.WaitNotify})
		if i.Notify {
			require.NoError(t, err, i.Name)
			continue
		}
		require.ErrorContains(t, err, i.Name+": wait notify: only designs whose release is a script can publish", i.Name)
	}
	for _, d := range notifyDesigns {
		info, err := lock.Lookup(d)
		require.NoError(t, err)
		require.True(t, info.Notify, d)
	}
}

func TestParseWait(t *testing.T) {
	for _, s := range lock.WaitNames {
		w, err := lock.ParseWait(s)
		require.NoError(t, err)
		require.Equal(t, s, w.String())
	}
	_, err := lock.ParseWait("pol")
	require.EqualError(t, err, `wait "pol": must be poll or notify`)
}

// waiterStrings starts a notified waiter on key with a clock that never
// moves on its own: it can get the lock only through an unlock message or
// an Advance. waiting is closed once it reached wait-for-unlock.
func waiterStrings(t *testing.T, name string, c redis.UniversalClient, clk *manualClockStrings) (lock.Locker, <-chan struct{}, <-chan error) {
	t.Helper()
	waiting := make(chan struct{})
	var once atomic.Bool
	hook := func(_ context.Context, ev lock.Event) error {
		if ev.Point == vocab.PointWaitForUnlock && once.CompareAndSwap(false, true) {
			close(waiting)
		}
		return nil
	}
	w, err := lock.New(name, []redis.UniversalClient{c}, lock.Options{
		TTL: ttlStrings, NodeTimeout: 5 * time.Second, Clock: clk, Hook: hook, Wait: lock.WaitNotify, Owner: "waiter",
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, lock.Close(w)) })
	done := make(chan error, 1)
	go func() {
		l, err := lock.WaitFor(t.Context(), w, w.Acquire, "k", lock.RetryPolicy{Interval: time.Hour}, clk, nil)
		if err == nil {
			err = w.Release(context.Background(), l)
		}
		done <- err
	}()
	return w, waiting, done
}

// waitDone waits for the waiter; the bound only guards against a hang.
func waitDone(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter never got the lock")
	}
}

func TestWaitNotifyWakesOnTheUnlockMessage(t *testing.T) {
	for _, name := range notifyDesigns {
		t.Run(name, func(t *testing.T) {
			_, client := newRedisStrings(t)
			holder, err := lock.New(name, []redis.UniversalClient{client()}, lock.Options{
				TTL: ttlStrings, NodeTimeout: 5 * time.Second, Wait: lock.WaitNotify, Owner: "holder",
			})
			require.NoError(t, err)
			t.Cleanup(func() { _ = lock.Close(holder) })
			held, err := holder.Acquire(t.Context(), "k")
			require.NoError(t, err)

			// The poll interval is an hour and the waiter's clock stands
			// still: only the message can let it in.
			_, waiting, done := waiterStrings(t, name, client(), newClockStrings(0))
			<-waiting
			require.NoError(t, holder.Release(t.Context(), held))
			waitDone(t, done)
		})
	}
}

func TestWaitNotifyLostMessageCostsTheHoldersPTTL(t *testing.T) {
	m, client := newRedisStrings(t)
	holder := newLockerStrings(t, "setpx", client(), nil, nil)
	_, err := holder.Acquire(t.Context(), "k")
	require.NoError(t, err)
	m.SetTTL("k", 300*time.Millisecond) // the holder's remaining PTTL as the waiter reads it

	clk := newClockStrings(0)
	_, waiting, done := waiterStrings(t, "setpx", client(), clk)
	<-waiting
	clk.WaitSleeping(t, 1)
	m.Del("k") // the key goes without a message (a lost one)
	clk.Advance(299 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the waiter woke before the holder's PTTL had passed (%v)", err)
	default:
	}
	clk.Advance(time.Millisecond)
	waitDone(t, done)
}

func TestWaitPollPublishesNothing(t *testing.T) {
	_, client := newRedisStrings(t)
	ps := client().(*redis.Client).PSubscribe(t.Context(), "*")
	defer ps.Close()
	_, err := ps.Receive(t.Context()) // the subscription is in place
	require.NoError(t, err)
	for _, name := range notifyDesigns {
		l := newLockerStrings(t, name, client(), nil, nil)
		held, err := l.Acquire(t.Context(), "poll-"+name)
		require.NoError(t, err)
		require.NoError(t, l.Release(t.Context(), held))
	}
	// Messages come in order: the first one must be the test's own.
	require.NoError(t, client().Publish(t.Context(), "sentinel", "end").Err())
	msg, err := ps.ReceiveMessage(t.Context())
	require.NoError(t, err)
	require.Equal(t, "sentinel", msg.Channel, "a polling design published")
}

func TestWaitNotifyGivesUpWithTheContext(t *testing.T) {
	_, client := newRedisStrings(t)
	holder := newLockerStrings(t, "setpx", client(), nil, nil)
	_, err := holder.Acquire(t.Context(), "k")
	require.NoError(t, err)
	clk := newClockStrings(0)
	w, err := lock.New("setpx", []redis.UniversalClient{client()}, lock.Options{
		TTL: ttlStrings, NodeTimeout: 5 * time.Second, Clock: clk, Wait: lock.WaitNotify,
	})
	require.NoError(t, err)
	defer func() { require.NoError(t, lock.Close(w)) }()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = lock.WaitFor(ctx, w, w.Acquire, "k", lock.RetryPolicy{Interval: time.Hour}, clk, nil)
	require.True(t, errors.Is(err, lock.ErrNotAcquired) || errors.Is(err, context.Canceled), "%v", err)

	// A bounded number of tries ends the wait too.
	_, err = lock.WaitFor(t.Context(), w, w.Acquire, "k", lock.RetryPolicy{Interval: time.Hour, MaxTries: 2}, clk, nil)
	require.ErrorIs(t, err, lock.ErrNotAcquired)
	require.ErrorContains(t, err, "after 2 tries")
}

// TestWaitNotifyResetSubscriptionFallsBackToPTTL: the waiter's
// connections are reset while it waits (as a drop fault or a node restart
// does); the release that follows cannot reach it, and it gets the lock on
// its PTTL timer, not before.
func TestWaitNotifyResetSubscriptionFallsBackToPTTL(t *testing.T) {
	m, client := newRedisStrings(t)
	holder := newLockerStrings(t, "setpx", client(), nil, nil)
	held, err := holder.Acquire(t.Context(), "k")
	require.NoError(t, err)

	var mu sync.Mutex
	var conns []net.Conn
	dialer := &net.Dialer{}
	waiterConn := redis.NewClient(&redis.Options{Addr: m.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err == nil {
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
			return c, err
		}})
	t.Cleanup(func() { _ = waiterConn.Close() })

	clk := newClockStrings(0)
	_, waiting, done := waiterStrings(t, "setpx", waiterConn, clk)
	<-waiting
	clk.WaitSleeping(t, 1)
	mu.Lock()
	for _, c := range conns {
		_ = c.Close()
	}
	mu.Unlock()
	require.NoError(t, holder.Release(t.Context(), held))
	select {
	case err := <-done:
		t.Fatalf("the waiter woke without a message or its PTTL (%v)", err)
	default:
	}
	clk.Advance(ttlStrings)
	waitDone(t, done)
}
