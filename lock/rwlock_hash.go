package lock

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "rwlock-hash",
		Summary:  "read/write lock on one hash with fields read/write holding the acquirer's ms timestamp; staleness judged per mode by client clocks; compare-on-delete unlock",
		Weakness: "one shared read field: the latest reader's unlock frees the lock for writers while earlier readers still read (and earlier readers cannot unlock); a client clock ahead by a TTL sees live holds as stale",
		Source:   "《Redis 分布式读写锁》 (cluster/hash version)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &rwHash{base: newBase("rwlock-hash", n, o), keyTTL: o.TTL, readExp: o.TTL, writeExp: o.TTL}, nil
		},
		Expires: true, ReadWrite: true, ClientClock: true, SharedRead: true,
	})
}

// rwHash is the hash read/write lock of 《Redis 分布式读写锁》, kept with its
// flaws. The hash at key has at most two fields, read and write, each holding
// the client-clock millisecond timestamp of the last acquire in that mode; that
// timestamp is also the lease's token. A hold counts as live while the
// acquiring client's clock says it is younger than the mode's threshold, and
// the whole hash gets a PEXPIRE on every acquire. Unlock deletes the field only
// if it still holds the lease's timestamp.
//
// Readers overwrite the one read field, so it names only the latest reader:
// that reader's unlock removes the read hold of every reader, and any other
// reader's unlock is a no-op (ErrNotHeld).
//
// The article uses a 10 s hash timeout and 1 s / 3 s read / write thresholds;
// locksim gives a design one TTL, so all three are Options.TTL here: a hold
// ends when its field is older than the TTL by the next acquirer's clock or
// when the hash expires, whichever comes first. The scripts store the
// caller's timestamp string as is (the article stores tonumber of it, the same
// digits for integer milliseconds) so that compare-on-delete cannot trip over
// a server's number formatting.
type rwHash struct {
	base
	keyTTL, readExp, writeExp time.Duration
}

var _ ReadLocker = (*rwHash)(nil)

var (
	// rwHashRead: KEYS[1] lock; ARGV[1] hash ttl ms, ARGV[2] read threshold
	// ms, ARGV[3] write threshold ms, ARGV[4] now ms (client clock).
	// 1 when acquired: no live write hold.
	rwHashRead = newScript(`
local now = tonumber(ARGV[4])
local w = redis.call("HGET", KEYS[1], "write")
if w and now - tonumber(w) <= tonumber(ARGV[3]) then
  return 0
end
redis.call("HSET", KEYS[1], "read", ARGV[4])
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return 1`)

	// rwHashWrite: as rwHashRead; 1 when acquired: neither a live write nor a
	// live read hold.
	rwHashWrite = newScript(`
local now = tonumber(ARGV[4])
local w = redis.call("HGET", KEYS[1], "write")
if w and now - tonumber(w) <= tonumber(ARGV[3]) then
  return 0
end
local r = redis.call("HGET", KEYS[1], "read")
if r and now - tonumber(r) <= tonumber(ARGV[2]) then
  return 0
end
redis.call("HSET", KEYS[1], "write", ARGV[4])
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return 1`)

	// rwHashRelease: KEYS[1] lock; ARGV[1] field (read|write), ARGV[2] the
	// lease's timestamp. Deletes the field only if it still holds it.
	rwHashRelease = newScript(`
if redis.call("HGET", KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call("HDEL", KEYS[1], ARGV[1])
end
return 0`)
)

// Acquire takes the write lock.
func (r *rwHash) Acquire(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Exclusive)
}

// AcquireRead takes (or joins) the shared read lock.
func (r *rwHash) AcquireRead(ctx context.Context, key string) (*Lease, error) {
	return r.acquire(ctx, key, Shared)
}

func (r *rwHash) acquire(ctx context.Context, key string, mode Mode) (*Lease, error) {
	s := rwHashWrite
	if mode == Shared {
		s = rwHashRead
	}
	start := r.now()
	stamp := strconv.FormatInt(start.UnixMilli(), 10)
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := s.run(cctx, r.node(), []string{key},
		r.keyTTL.Milliseconds(), r.readExp.Milliseconds(), r.writeExp.Milliseconds(), stamp).Int64()
	if err != nil {
		return nil, r.unknown("acquire "+mode.String(), key, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: %s lock on %q", ErrNotAcquired, mode, key)
	}
	return r.lease(key, stamp, mode, start), nil
}

// Release deletes the lease's field if it still holds the lease's timestamp.
func (r *rwHash) Release(ctx context.Context, l *Lease) error {
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := rwHashRelease.run(cctx, r.node(), []string{l.Key}, l.Mode.String(), l.Token).Int64()
	if err != nil {
		return r.unknown("release "+l.Mode.String(), l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: release %s %q: %w", r.name, l.Mode, l.Key, ErrNotHeld)
	}
	return nil
}
