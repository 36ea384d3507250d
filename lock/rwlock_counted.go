package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "rwlock-counted",
		Summary:  "read/write lock on one hash: field mode (read|write) plus one field per owner holding its hold count; unlock decrements only its own owner's count",
		Weakness: "one TTL for the whole hash: readers (and their watchdogs) keep each other's holds alive, so a crashed reader's hold lasts until the last reader leaves plus a TTL; single master, no fencing",
		Source:   "Redisson RReadWriteLock (per-owner counts), replacing the shared read marker of 《Redis 分布式读写锁》",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			if o.Owner == rwModeField {
				return nil, fmt.Errorf("rwlock-counted: owner %q collides with the hash's mode field", o.Owner)
			}
			return &rwCounted{base: newBase("rwlock-counted", n, o)}, nil
		},
		Expires: true, ReadWrite: true, Reentrant: true, Watchdog: true, Extendable: true, Notify: true,
	})
}

// rwModeField is the hash field that says which mode the lock is in.
const rwModeField = "mode"

// rwCounted is a read/write lock that 《Redis 分布式读写锁》 does not give:
// readers are counted per owner, as Redisson's RReadWriteLock counts them per
// thread. The hash at key holds
//
//	mode     "read" or "write"
//	<owner>  that owner's number of nested holds in that mode
//
// A write is taken when the hash is absent, or nested when it is in write
// mode and the owner's field exists; a read is taken when the hash is absent
// or in read mode. A read never joins a write hold, not even the same owner's
// (Redisson allows that downgrade; locksim keeps it simple), and a write never
// joins a read hold (no upgrade, as in Redisson). Unlock decrements only the
// caller's own field, deletes it at zero, and deletes the hash when no owner
// field is left: one reader's unlock can never end another reader's hold.
//
// The token is the owner, not a per-lease value, because the hash counts
// owners: nested leases of one owner are interchangeable levels of one hold,
// as in the reentrant design. Release, Extend and the watchdog act as this
// Locker's Options.Owner (the identity, like Redisson's thread id) and also
// check that the hash is still in the lease's mode, so a lease that expired
// cannot touch a later hold of another owner or of the other mode.
//
// Known limitation: the TTL belongs to the whole hash, not to each reader.
// Every read acquire or renewal extends the hash to at least this client's
// TTL (never shortening it, so a client with a short TTL cannot cut the hold
// of one with a long TTL), which extends every reader's hold with it: a
// crashed reader keeps blocking writers until the other readers have left and
// the TTL has run out. Redisson adds a timeout key per reader hold
// ({key}:<id>:rwlock_timeout:<n>) and shrinks the hash's TTL to the longest
// of them on unlock; this design does not. Safety is unaffected: a hold
// never outlives the hash.
type rwCounted struct{ base }

var (
	_ ReadLocker = (*rwCounted)(nil)
	_ Extender   = (*rwCounted)(nil)
)

var (
	// rwCountedRead: KEYS[1] lock; ARGV[1] owner, ARGV[2] ttl ms.
	// nil when acquired, else the PTTL of the write hold in the way.
	rwCountedRead = newScript(`
local mode = redis.call("HGET", KEYS[1], "mode")
if mode == false then
  redis.call("HSET", KEYS[1], "mode", "read", ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return nil
end
if mode == "read" then
  redis.call("HINCRBY", KEYS[1], ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], math.max(redis.call("PTTL", KEYS[1]), tonumber(ARGV[2])))
  return nil
end
return redis.call("PTTL", KEYS[1])`)

	// rwCountedWrite: KEYS[1] lock; ARGV[1] owner, ARGV[2] ttl ms.
	// nil when acquired (first or nested), else the PTTL of the holds in the way.
	rwCountedWrite = newScript(`
local mode = redis.call("HGET", KEYS[1], "mode")
if mode == false then
  redis.call("HSET", KEYS[1], "mode", "write", ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return nil
end
if mode == "write" and redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  redis.call("HINCRBY", KEYS[1], ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], math.max(redis.call("PTTL", KEYS[1]), tonumber(ARGV[2])))
  return nil
end
return redis.call("PTTL", KEYS[1])`)

	// rwCountedRelease: KEYS[1] lock; ARGV[1] owner, ARGV[2] mode.
	// 0: the owner holds nothing in that mode; 1: one level unwound;
	// 2: the owner's last level, others still hold; 3: the lock is free.
	// The TTL is left alone: an unlock never prolongs the others' holds.
	rwCountedRelease = newScript(`
if redis.call("HGET", KEYS[1], "mode") ~= ARGV[2] or redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then
  return 0
end
if redis.call("HINCRBY", KEYS[1], ARGV[1], -1) > 0 then
  return 1
end
redis.call("HDEL", KEYS[1], ARGV[1])
if redis.call("HLEN", KEYS[1]) > 1 then
  return 2
end
redis.call("DEL", KEYS[1])
if KEYS[2] then
  redis.call("PUBLISH", KEYS[2], "unlocked")
end
return 3`)

	// rwCountedExtend: KEYS[1] lock; ARGV[1] owner, ARGV[2] mode, ARGV[3] ttl ms.
	rwCountedExtend = newScript(`
if redis.call("HGET", KEYS[1], "mode") ~= ARGV[2] or redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call("PEXPIRE", KEYS[1], math.max(redis.call("PTTL", KEYS[1]), tonumber(ARGV[3])))
return 1`)
)

// Acquire takes the write lock, or one more level of this owner's write hold.
func (r *rwCounted) Acquire(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Exclusive)
}

// AcquireRead takes a read hold, or one more level of this owner's.
func (r *rwCounted) AcquireRead(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Shared)
}

func (r *rwCounted) acquire(ctx context.Context, key string, mode Mode) (*Lease, error) {
	s := rwCountedWrite
	if mode == Shared {
		s = rwCountedRead
	}
	owner := r.opts.Owner
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	pttl, err := s.run(cctx, r.node(), []string{key}, owner, r.opts.TTL.Milliseconds()).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		// acquired
	case err != nil:
		return nil, r.unknown("acquire "+mode.String(), key, err)
	default:
		return nil, refusedFor(pttl, "%s lock on %q blocked for %dms more", mode, key, pttl)
	}
	l := r.lease(key, owner, mode, start)
	if r.opts.Watchdog {
		startWatchdog(r.opts, l, func(ctx context.Context) error { return r.Extend(ctx, l) }, r.variant)
	}
	return l, nil
}

// Release unwinds one level of this owner's hold in the lease's mode.
func (r *rwCounted) Release(ctx context.Context, l *Lease) error {
	l.stop()
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := rwCountedRelease.run(cctx, r.node(), r.releaseKeys(l.Key), r.opts.Owner, l.Mode.String()).Int64()
	if err != nil {
		return r.unknown("release "+l.Mode.String(), l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: release %s %q: %w", r.name, l.Mode, l.Key, ErrNotHeld)
	}
	return nil
}

// Extend prolongs the whole hash (see the type's note on the shared TTL)
// while this owner still holds it in the lease's mode.
func (r *rwCounted) Extend(ctx context.Context, l *Lease) error {
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := rwCountedExtend.run(cctx, r.node(), []string{l.Key}, r.opts.Owner, l.Mode.String(), r.opts.TTL.Milliseconds()).Int64()
	if err != nil {
		return r.unknown("extend "+l.Mode.String(), l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: extend %s %q: %w", r.name, l.Mode, l.Key, ErrNotHeld)
	}
	l.renewed(start, Validity(r.opts.TTL, r.now().Sub(start), r.opts.Drift))
	return nil
}
