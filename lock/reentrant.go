package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

// ErrNotOwner is the reentrant designs' "foreign unlock": the lock exists but
// is held by another owner. It is an ErrNotHeld, so errors.Is(err, ErrNotHeld)
// holds for it; callers that care can tell it from a lock that simply expired.
var ErrNotOwner = fmt.Errorf("%w: held by another owner", ErrNotHeld)

func init() {
	register(Info{
		Name:     "reentrant",
		Summary:  "hash key{owner: hold count}; Lua acquire HINCRBY+PEXPIRE when absent or own; unlock decrements, DEL at 0",
		Weakness: "single master (failover or restart without fsync loses it); no fencing; identity is the owner id, so every lease of one owner is the same hold",
		Source:   "《分布式锁-By Redis》 (hash + Lua reentrant lock, timer renewal), 《Redis系列(十三)应用之分布式锁》 (Redisson RLock)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &reentrant{base: newBase("reentrant", n, o)}, nil
		},
		Expires: true, Reentrant: true, Watchdog: true, Extendable: true, Notify: true,
	})
	registerVariant("reentrant", Info{
		Name:     "reentrant-renewal-gives-up",
		Summary:  "reentrant whose watchdog stops after one renewal with an unknown outcome (a timeout) instead of trying again next period",
		Weakness: "a renewal that times out (a failover, a slow link) ends the renewals: the lock expires at its last renewal's TTL while the holder works on",
		Source:   "Redisson RedissonLock.renewExpiration before its fix of redisson/redisson #775 (no reschedule when the update failed)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			b := newBase("reentrant-renewal-gives-up", n, o)
			b.variant.renewalGivesUp = true
			return &reentrant{base: b}, nil
		},
		Expires: true, Reentrant: true, Watchdog: true, Extendable: true, Notify: true,
	})
}

// reentrant is the lock of 《分布式锁-By Redis》, modelled on
// java.util.concurrent's ReentrantLock: the hash at key has one field, the
// owner id, whose value counts the owner's nested holds. The article's EXPIRE
// in seconds becomes PEXPIRE in milliseconds because locksim's TTLs are
// sub-second.
//
// The identity that acquires, unlocks and renews is this Locker's
// Options.Owner (the article's thread id), never a value taken from the lease:
// a lease handed to another client cannot unlock on its owner's behalf.
type reentrant struct{ base }

var _ Extender = (*reentrant)(nil)

var (
	// reentrantAcquire: KEYS[1] lock; ARGV[1] owner, ARGV[2] ttl ms.
	// nil when acquired (first or nested hold), else the holder's PTTL.
	reentrantAcquire = newScript(`
if redis.call("EXISTS", KEYS[1]) == 0 or redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  redis.call("HINCRBY", KEYS[1], ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return nil
end
return redis.call("PTTL", KEYS[1])`)

	// reentrantRelease: KEYS[1] lock; ARGV[1] owner, ARGV[2] ttl ms.
	// -1: no lock at all (expired); nil: held by another owner (the article's
	// "malicious unlock"); 0: one level unwound, still held; 1: freed.
	reentrantRelease = newScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call("HINCRBY", KEYS[1], ARGV[1], -1) > 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 0
end
redis.call("DEL", KEYS[1])
if KEYS[2] then
  redis.call("PUBLISH", KEYS[2], "unlocked")
end
return 1`)

	// reentrantExtend is the article's renewal script: reset the TTL only
	// while the owner's field exists. KEYS[1] lock; ARGV[1] owner, ARGV[2] ttl ms.
	reentrantExtend = newScript(`
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)

// Acquire takes the lock or one more level of it. Nested leases share the
// owner as token; each Release unwinds one level, and the lock is free once
// every lease of the owner is released.
func (r *reentrant) Acquire(ctx context.Context, key string) (*Lease, error) {
	owner := r.opts.Owner
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	pttl, err := reentrantAcquire.run(cctx, r.node(), []string{key}, owner, r.opts.TTL.Milliseconds()).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		// acquired
	case err != nil:
		return nil, r.unknown("acquire", key, err)
	default:
		return nil, refusedFor(pttl, "%q held by another owner for %dms more", key, pttl)
	}
	l := r.lease(key, owner, Exclusive, start)
	if r.opts.Watchdog {
		startWatchdog(r.opts, l, func(ctx context.Context) error { return r.Extend(ctx, l) }, r.variant)
	}
	return l, nil
}

// Release unwinds one level of the owner's hold. A release by an owner that
// does not hold the lock is refused with ErrNotOwner while someone else holds
// it, and with ErrNotHeld when the lock is gone.
func (r *reentrant) Release(ctx context.Context, l *Lease) error {
	l.stop()
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := reentrantRelease.run(cctx, r.node(), r.releaseKeys(l.Key), r.opts.Owner, r.opts.TTL.Milliseconds()).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("%s: release %q: %w", r.name, l.Key, ErrNotOwner)
	case err != nil:
		return r.unknown("release", l.Key, err)
	case n < 0:
		return fmt.Errorf("%s: release %q: %w", r.name, l.Key, ErrNotHeld)
	}
	return nil
}

// Extend resets the whole hash's TTL while the owner still holds it; it is
// what the watchdog runs (the article's timer renewal).
func (r *reentrant) Extend(ctx context.Context, l *Lease) error {
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := reentrantExtend.run(cctx, r.node(), []string{l.Key}, r.opts.Owner, r.opts.TTL.Milliseconds()).Int64()
	if err != nil {
		return r.unknown("extend", l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: extend %q: %w", r.name, l.Key, ErrNotHeld)
	}
	l.renewed(start, Validity(r.opts.TTL, r.now().Sub(start), r.opts.Drift))
	return nil
}
