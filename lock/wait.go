package lock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Wait says how a blocking acquire waits between attempts.
type Wait int

const (
	// WaitPoll retries after RetryPolicy.Interval plus jitter: the articles'
	// tryLock loop, redsync's and redislock's timer.
	WaitPoll Wait = iota
	// WaitNotify is Redisson's lock(): release publishes on the lock's
	// channel inside its script; a waiter subscribes before its next
	// attempt and retries when a message comes, or when the holder's
	// remaining PTTL has run out, whichever is first. A lost message costs
	// at most that PTTL.
	WaitNotify
)

// WaitNames are the spellings ParseWait accepts, in Wait order.
var WaitNames = []string{"poll", "notify"}

func (w Wait) String() string {
	if w >= 0 && int(w) < len(WaitNames) {
		return WaitNames[w]
	}
	return fmt.Sprintf("Wait(%d)", int(w))
}

// ParseWait reads "poll" or "notify".
func ParseWait(s string) (Wait, error) {
	for i, n := range WaitNames {
		if s == n {
			return Wait(i), nil
		}
	}
	return 0, fmt.Errorf("wait %q: must be poll or notify", s)
}

// unlockChannel is the lock's notification channel (Redisson's
// redisson_lock__channel:{name}). The release script names it as a key
// beside the lock's, so on a Redis Cluster both must hash to one slot
// (else CROSSSLOT refuses the release): the key becomes the channel's
// hash tag, as in Redisson, unless it has braces of its own, whose first
// tag (the key's own, if any) the channel then shares.
func unlockChannel(key string) string {
	if strings.ContainsAny(key, "{}") {
		return "locksim-unlock:" + key
	}
	return "locksim-unlock:{" + key + "}"
}

// releaseKeys are the keys of a release script: the lock, and its unlock
// channel when the design notifies waiters (Redisson passes the channel as
// KEYS[2] too).
func (b *base) releaseKeys(key string) []string {
	if b.opts.Wait == WaitNotify {
		return []string{key, unlockChannel(key)}
	}
	return []string{key}
}

// heldFor is wrapped next to ErrNotAcquired by designs whose acquire script
// answers a refusal with the holder's PTTL, so that a notified waiter needs
// no PTTL command of its own. Its message is empty.
type heldFor struct{ ttl time.Duration }

func (*heldFor) Error() string { return "" }

// refusedFor is a refusal that carries the holder's remaining PTTL (ms).
func refusedFor(pttlMs int64, format string, args ...any) error {
	ttl := time.Duration(pttlMs) * time.Millisecond
	if pttlMs < 0 {
		ttl = time.Duration(pttlMs) // PTTL's -1 and -2, as go-redis's PTTL gives them
	}
	return fmt.Errorf("%w: "+format+"%w", append(append([]any{ErrNotAcquired}, args...), &heldFor{ttl})...)
}

// notifyWaiter is a design that can wait for its unlock message; base
// implements it, and New lets Options.Wait be WaitNotify only for designs
// whose Info says Notify.
type notifyWaiter interface {
	waitsForNotify() bool
	blockNotify(ctx context.Context, acquire Acquirer, key string, p RetryPolicy, clk Clock) (*Lease, error)
}

// WaitFor is the blocking acquire of locker's design under its Options.Wait:
// Blocking for poll, the subscribe-attempt-wait loop for notify. acquire is
// the single attempt (locker's Acquire or AcquireRead, possibly recorded by
// the caller); clk and rnd as for Blocking.
func WaitFor(ctx context.Context, locker Locker, acquire Acquirer, key string, p RetryPolicy, clk Clock, rnd *rand.Rand) (*Lease, error) {
	if w, ok := locker.(notifyWaiter); ok && w.waitsForNotify() {
		return w.blockNotify(ctx, acquire, key, p, clk)
	}
	return Blocking(ctx, acquire, key, p, clk, rnd)
}

// Close frees what a Locker keeps open beyond its node clients (the
// notified waiter's subscriber connection). The node clients are the
// caller's to close.
func Close(l Locker) error {
	if c, ok := l.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// holderTTL reads how long the holder's key has left: from the refusal when
// the design's script said so, else by PTTL. A key that is gone gives 0 (try
// again now); an error or a key without TTL gives the full TTL, the longest
// a lease of this design may last without renewal.
func (b *base) holderTTL(ctx context.Context, key string, refusal error) time.Duration {
	if h, ok := errors.AsType[*heldFor](refusal); ok {
		return b.clampTTL(h.ttl)
	}
	cctx, cancel := b.cmdCtx(ctx)
	defer cancel()
	d, err := b.node().PTTL(cctx, key).Result()
	if err != nil {
		return b.opts.TTL
	}
	return b.clampTTL(d)
}

// clampTTL maps a PTTL reply (go-redis gives -2 and -1 as such) onto a
// wait: -2 (no key) none, -1 (no TTL) the full TTL, anything else itself
// (a watchdog may have renewed the holder past one TTL: its PTTL is then
// the honest wait).
func (b *base) clampTTL(d time.Duration) time.Duration {
	switch {
	case d == -2:
		return 0
	case d < 0:
		return b.opts.TTL
	}
	return d
}
