package lock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "setnx-getset",
		Summary:  "SETNX key <client expiry ms> + PEXPIRE; a stale stamp (by this client's clock, with tolerance) is taken over with GETSET; DEL unlock",
		Weakness: "expiry is judged by client clocks: a client whose clock runs ahead by more than TTL + tolerance takes a live lock; DEL removes another owner's lock",
		Source:   "《使用Redis实现分布式锁及其优化》 (21CTO; 承: SETNX with expiry timestamp + GETSET, 1 s tolerance)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &setnxGetset{base: newBase("setnx-getset", n, o)}, nil
		},
		Expires: true, DelUnlock: true, ClientClock: true,
	})
}

// setnxGetset is the second version in 《使用Redis实现分布式锁及其优化》. The
// value is the holder's expiry instant in Unix ms on its own clock (the lease
// token is that string); a contender that finds the key compares the stamp with
// its own clock and, if it looks stale, swaps in its stamp with GETSET and wins
// only if GETSET returned the stamp it had read. Like the article it also gives
// the key a Redis TTL after SETNX and after a won GETSET (which clears the
// TTL), each a separate command.
//
// The article stores now + ttl + 1 s and tests stamp < now; this stores
// now + ttl and tests stamp + Tolerance < now, which decides the same.
type setnxGetset struct{ base }

func (s *setnxGetset) Acquire(ctx context.Context, key string) (*Lease, error) {
	start := s.now()
	stamp := strconv.FormatInt(start.Add(s.opts.TTL).UnixMilli(), 10)
	cctx, cancel := s.cmdCtx(ctx)
	ok, err := s.node().SetNX(cctx, key, stamp, 0).Result()
	cancel()
	if err != nil {
		return nil, s.unknown("acquire (SETNX)", key, err)
	}
	if ok {
		// A crash here leaves a key without TTL; the article's recovery is
		// the stamp comparison below.
		if err := s.at(ctx, vocab.PointBetweenSetnxAndExpire, key, nil); err != nil {
			return nil, err
		}
		return s.expire(ctx, key, stamp, start)
	}

	cctx, cancel = s.cmdCtx(ctx)
	read, err := s.node().Get(cctx, key).Result()
	cancel()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%s: acquire %q: released between SETNX and GET: %w", s.name, key, ErrNotAcquired)
	}
	if err != nil {
		return nil, s.unknown("acquire (GET)", key, err)
	}
	held, err := strconv.ParseInt(read, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %q: value %q is not a timestamp: %w", s.name, key, read, ErrNotAcquired)
	}
	if held+s.opts.Tolerance.Milliseconds() >= start.UnixMilli() {
		return nil, fmt.Errorf("%s: acquire %q: %w", s.name, key, ErrNotAcquired)
	}
	if err := s.at(ctx, vocab.PointBetweenGetAndGetset, key, nil); err != nil {
		return nil, err
	}
	cctx, cancel = s.cmdCtx(ctx)
	prev, err := s.node().GetSet(cctx, key, stamp).Result()
	cancel()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.unknown("acquire (GETSET)", key, err)
	}
	if prev != read {
		// Another contender swapped first (or the key was released and this
		// GETSET re-created it). As in the article, the stamp just written
		// stays: it is close to the winner's.
		return nil, fmt.Errorf("%s: acquire %q: lost the GETSET race: %w", s.name, key, ErrNotAcquired)
	}
	if err := s.at(ctx, vocab.PointBetweenGetsetExpire, key, nil); err != nil {
		return nil, err
	}
	return s.expire(ctx, key, stamp, start)
}

// expire is the article's EXPIRE after a won SETNX or GETSET.
func (s *setnxGetset) expire(ctx context.Context, key, stamp string, start time.Time) (*Lease, error) {
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	if err := s.node().PExpire(cctx, key, s.opts.TTL).Err(); err != nil {
		return nil, s.unknown("acquire (PEXPIRE)", key, err)
	}
	// The article ignores EXPIRE's reply, and so does this (see setnxExpire).
	return s.lease(key, stamp, Exclusive, start), nil
}

func (s *setnxGetset) Release(ctx context.Context, l *Lease) error {
	return releaseKey(ctx, &s.base, l, true)
}
