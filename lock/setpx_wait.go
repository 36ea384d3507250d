package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "setpx-wait",
		Summary:  "SET key token NX PX ttl, then WAIT 1 <timeout>: counts only if the replica acknowledged, else releases and fails",
		Weakness: "WAIT does not make Redis strongly consistent: an acknowledged write is still lost if the master restarts empty and the replica resyncs from it (failover-wait-still-loses), or the replica that had it restarts empty or is not the one promoted",
		Source:   "Redis docs (WAIT command page: \"does not make Redis a strongly consistent store\")",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &setPXWait{base: newBase("setpx-wait", n, o)}, nil
		},
		Expires: true, NeedsReplica: true,
	})
	registerVariant("setpx-wait", Info{
		Name:     "setpx-wait-unchecked",
		Summary:  "SET key token NX PX ttl, then WAIT 1 <timeout>, granting the lock whatever WAIT answered",
		Weakness: "a lock no replica has is granted all the same: a failover loses it, as setpx's does, and the WAIT only costs its timeout",
		Source:   "Redisson RedissonBaseLock.evalWriteAsync before its fix of redisson/redisson #3994 (the WAIT's synced replicas not checked)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			b := newBase("setpx-wait-unchecked", n, o)
			b.variant.waitUnchecked = true
			return &setPXWait{base: b}, nil
		},
		Expires: true, NeedsReplica: true,
	})
}

// setPXWait is setpx that waits for one replica to acknowledge the SET
// before it counts the lock as acquired: a failover then promotes a replica
// that has the key. A replica that does not answer within WaitTimeout makes
// the acquire fail (after a compare-and-delete of the key it set).
type setPXWait struct {
	base
}

// ErrNotReplicated is the refusal of setpx-wait when no replica
// acknowledged the SET in time; it wraps ErrNotAcquired.
var ErrNotReplicated = fmt.Errorf("%w: no replica acknowledged the SET", ErrNotAcquired)

// WaitTimeout is setpx-wait's WAIT timeout: half the node timeout (the
// WAIT must answer before the command's own deadline), at most 200 ms, at
// least 10 ms.
func WaitTimeout(o Options) time.Duration {
	return max(min(o.NodeTimeout/2, 200*time.Millisecond), 10*time.Millisecond)
}

func (s *setPXWait) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := s.opts.Tokens()
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	err := s.node().SetArgs(cctx, key, token, redis.SetArgs{Mode: "NX", TTL: s.opts.TTL}).Err()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotAcquired
	}
	if err != nil {
		return nil, s.unknown("acquire", key, err)
	}
	wait := WaitTimeout(s.opts)
	wctx, wcancel := s.cmdCtx(ctx)
	defer wcancel()
	acks, err := s.node().Do(wctx, "WAIT", 1, wait.Milliseconds()).Int64()
	if err != nil {
		// The key is set; whether a replica has it is not known.
		return nil, s.unknown("acquire", key, fmt.Errorf("WAIT: %w", err))
	}
	if acks < 1 && !s.variant.waitUnchecked {
		// Not on a replica: a failover could lose it. Give it back.
		rctx, rcancel := s.cmdCtx(ctx)
		defer rcancel()
		if _, err := compareAndDelete.run(rctx, s.node(), []string{key}, token).Result(); err != nil {
			return nil, s.unknown("acquire", key, fmt.Errorf("release after WAIT %v timed out: %w", wait, err))
		}
		return nil, fmt.Errorf("%w within %v", ErrNotReplicated, wait)
	}
	return s.lease(key, token, Exclusive, start), nil
}

func (s *setPXWait) Release(ctx context.Context, l *Lease) error {
	l.stop()
	return releaseKey(ctx, &s.base, l, false)
}
