package lock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Acquirer is one attempt at taking a lock: Locker.Acquire or
// ReadLocker.AcquireRead.
type Acquirer func(ctx context.Context, key string) (*Lease, error)

// Blocking retries acquire at a fixed interval plus random jitter until it
// succeeds, fails with something other than ErrNotAcquired, runs out of tries
// or ctx ends. It is the articles' polling tryLock, shared by every design.
// rnd may be nil for no jitter. The last error is wrapped on giving up.
func Blocking(ctx context.Context, acquire Acquirer, key string, p RetryPolicy, clk Clock, rnd *rand.Rand) (*Lease, error) {
	// Bounded by p.MaxTries and by ctx: every round sleeps at least
	// minRetryWait on clk, and the sleep ends when ctx does.
	for try := 1; ; try++ {
		l, err := acquire(ctx, key)
		if err == nil || !errors.Is(err, ErrNotAcquired) {
			return l, err
		}
		if p.MaxTries > 0 && try >= p.MaxTries {
			return nil, fmt.Errorf("%w after %d tries", err, try)
		}
		wait := p.Interval
		if wait <= 0 {
			// A policy that New did not check (it refuses a negative
			// interval and defaults a zero one) must not spin on the node.
			wait = minRetryWait
		}
		if rnd != nil && p.Jitter > 0 {
			wait += time.Duration(rnd.Int64N(int64(p.Jitter)))
		}
		if err := clk.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%w: gave up after %d tries: %w", ErrNotAcquired, try, err)
		}
	}
}

// minRetryWait is the shortest wait between two refused attempts, polled
// or notified: every retry loop sleeps at least this long on its clock,
// which ends the sleep when ctx ends, so none spins.
const minRetryWait = time.Millisecond

// newRand makes a design's own seeded random source.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}
