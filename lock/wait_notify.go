package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/vocab"
)

// notifier is a design's subscriber connection, dialed at its first wait
// and kept while it works (Redisson too keeps one pub/sub connection and
// subscribes per wait). A Locker is used by one client at a time; the
// mutex guards Close from another goroutine.
type notifier struct {
	mu  sync.Mutex
	sub *subConn
}

func (b *base) waitsForNotify() bool { return b.opts.Wait == WaitNotify }

// Close closes the subscriber connection, if one is open.
func (b *base) Close() error {
	b.notify.mu.Lock()
	defer b.notify.mu.Unlock()
	if b.notify.sub == nil {
		return nil
	}
	err := b.notify.sub.Close()
	b.notify.sub = nil
	return err
}

// subscribed returns a working subscriber connection subscribed to
// channel, dialing a new one when the last broke. Dial and confirmation
// share one command bound (NodeTimeout, else the TTL): under a partition
// the confirmation never comes and the waiter falls back to its timer.
func (b *base) subscribed(ctx context.Context, channel string) (*subConn, error) {
	b.notify.mu.Lock()
	defer b.notify.mu.Unlock()
	if b.notify.sub != nil && b.notify.sub.broken() {
		_ = b.notify.sub.Close()
		b.notify.sub = nil
	}
	bound := b.opts.NodeTimeout
	if bound == 0 {
		bound = b.opts.TTL
	}
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	if b.notify.sub == nil {
		s, err := dialSub(cctx, b.node(), channel)
		if err != nil {
			return nil, err
		}
		b.notify.sub = s
	}
	if err := b.notify.sub.subscribe(cctx, channel); err != nil {
		// A connection whose confirmation did not come cannot be trusted
		// with the next wait either.
		_ = b.notify.sub.Close()
		b.notify.sub = nil
		return nil, err
	}
	return b.notify.sub, nil
}

// blockNotify is the notified blocking acquire. Like Redisson's lock(), it
// makes a first attempt unsubscribed; once refused it subscribes and tries
// again at once, so that no release can fall between a refusal and the
// subscription; every later refusal waits for a message or the holder's
// remaining PTTL, whichever comes first. A subscription that cannot be
// made or breaks leaves the timer alone: a lost message costs at most the
// PTTL, never a deadlock. p.MaxTries bounds the attempts, ctx the whole.
func (b *base) blockNotify(ctx context.Context, acquire Acquirer, key string, p RetryPolicy, clk Clock) (*Lease, error) {
	channel := unlockChannel(key)
	var sub *subConn
	defer func() {
		if sub != nil && !sub.broken() {
			cctx, cancel := b.cmdCtx(context.WithoutCancel(ctx))
			_ = sub.unsubscribe(cctx, channel)
			cancel()
		}
	}()
	subscribedOnce := false
	// Bounded by p.MaxTries and by ctx: every round but the one right
	// after the first subscribe sleeps at least minRetryWait on clk, and
	// the sleep ends when ctx does.
	for try := 1; ; try++ {
		l, err := acquire(ctx, key)
		if err == nil || !errors.Is(err, ErrNotAcquired) {
			return l, err
		}
		if p.MaxTries > 0 && try >= p.MaxTries {
			return nil, fmt.Errorf("%w after %d tries", err, try)
		}
		if sub == nil || sub.broken() {
			// (Re)subscribe before the next attempt; the first time that
			// attempt follows at once.
			sub, _ = b.subscribed(ctx, channel)
			if sub != nil && !subscribedOnce {
				subscribedOnce = true
				continue
			}
		}
		// At least minRetryWait: a refusal while the key reads as gone
		// (it expired or was released in between) must not spin.
		wait := max(b.holderTTL(ctx, key, err), minRetryWait)
		if noFallback.Load() {
			wait = 24 * time.Hour // the mutant: only a message wakes it
		}
		if err := b.at(ctx, vocab.PointWaitForUnlock, key, nil); err != nil {
			return nil, err
		}
		if err := sleepOrMessage(ctx, clk, wait, sub, channel); err != nil {
			return nil, fmt.Errorf("%w: gave up after %d tries: %w", ErrNotAcquired, try, err)
		}
	}
}

// noFallback, set by the tests alone (export_test.go), turns the
// notified waiter into a mutant that never falls back to the holder's
// PTTL: a lost message leaves it waiting for ever. The liveness check
// must catch it.
var noFallback atomic.Bool

// sleepOrMessage waits d on clk, cut short by a message on channel. A nil
// or broken sub only sleeps.
func sleepOrMessage(ctx context.Context, clk Clock, d time.Duration, sub *subConn, channel string) error {
	if d <= 0 {
		return ctx.Err()
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if sub != nil {
		wg.Go(func() {
			for {
				select {
				case ch := <-sub.msgs:
					if ch == channel {
						cancel()
						return
					}
				case <-wctx.Done():
					return
				}
			}
		})
	}
	_ = clk.Sleep(wctx, d)
	cancel()
	wg.Wait()
	return ctx.Err()
}
