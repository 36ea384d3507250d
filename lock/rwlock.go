package lock

import (
	"context"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "rwlock",
		Summary:  "read/write lock on two keys <key>:read and <key>:write set in Lua, each refused while the other exists; DEL unlock",
		Weakness: "readers share one read marker: one reader's unlock deletes it while others still read, and a late DEL removes a successor's hold; the two keys must live on one node",
		Source:   "《Redis 分布式读写锁》 (single-instance version)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &rwLock{base: newBase("rwlock", n, o)}, nil
		},
		Expires: true, ReadWrite: true, DelUnlock: true, SharedRead: true,
	})
}

// rwLock is the single-instance read/write lock of 《Redis 分布式读写锁》, kept
// with its flaw. A read hold is the one key <key>:read that every reader
// overwrites (the article calls the read lock "reentrant": any number of
// readers take it while no writer holds <key>:write); a write hold is
// <key>:write taken NX while no read key exists. Unlock is a plain DEL of the
// lease's key, so the first reader to leave frees the lock for writers while
// the others still read.
//
// Differences from the article that do not change its behaviour: the TTL is
// in milliseconds (PX instead of EX seconds), and the key stores the lease's
// token instead of the constant '1' so that a dump shows who wrote it last;
// nothing ever compares that value.
type rwLock struct{ base }

var _ ReadLocker = (*rwLock)(nil)

var (
	// rwRead: KEYS[1] read key, KEYS[2] write key; ARGV[1] token, ARGV[2] ttl ms.
	// Overwrites the shared read key (and so its TTL) unless a writer holds.
	rwRead = newScript(`
if redis.call("EXISTS", KEYS[2]) == 1 then
  return 0
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return 1`)

	// rwWrite: KEYS[1] read key, KEYS[2] write key; ARGV[1] token, ARGV[2] ttl ms.
	rwWrite = newScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then
  return 0
end
if redis.call("SET", KEYS[2], ARGV[1], "PX", ARGV[2], "NX") then
  return 1
end
return 0`)
)

// rwReadKey and rwWriteKey name the two keys of one lock. They carry no hash
// tag, as in the article: on a cluster they may land on different shards, and
// the scripts then fail (the article's reason for its hash version).
func rwReadKey(key string) string  { return key + ":read" }
func rwWriteKey(key string) string { return key + ":write" }

// Acquire takes the write lock.
func (r *rwLock) Acquire(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Exclusive)
}

// AcquireRead takes (or joins) the shared read lock.
func (r *rwLock) AcquireRead(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Shared)
}

func (r *rwLock) acquire(ctx context.Context, key string, mode Mode) (*Lease, error) {
	s := rwWrite
	if mode == Shared {
		s = rwRead
	}
	token := r.opts.Tokens()
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := s.run(cctx, r.node(), []string{rwReadKey(key), rwWriteKey(key)}, token, r.opts.TTL.Milliseconds()).Int64()
	if err != nil {
		return nil, r.unknown("acquire "+mode.String(), key, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: %s lock on %q", ErrNotAcquired, mode, key)
	}
	return r.lease(key, token, mode, start), nil
}

// Release deletes the key of the lease's mode, whoever set it last: for a
// reader that is the read marker all readers share.
func (r *rwLock) Release(ctx context.Context, l *Lease) error {
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	k := rwWriteKey(l.Key)
	if l.Mode == Shared {
		k = rwReadKey(l.Key)
	}
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := r.node().Del(cctx, k).Result()
	if err != nil {
		return r.unknown("release "+l.Mode.String(), l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: release %s %q: %w", r.name, l.Mode, l.Key, ErrNotHeld)
	}
	return nil
}
