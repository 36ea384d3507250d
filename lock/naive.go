package lock

import (
	"context"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "naive",
		Summary:  "EXISTS key, then SET key token (no TTL) if it was absent; DEL unlock",
		Weakness: "check and set are two commands, so two clients can both see the key absent and both take it; no TTL, so a crashed holder deadlocks the lock; DEL removes anyone's lock",
		Source:   "《Redis系列(十三)应用之分布式锁》 (简单思路: exists + set)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &naive{base: newBase("naive", n, o)}, nil
		},
		DelUnlock: true,
	})
}

// naive is the first step of 《Redis系列(十三)应用之分布式锁》: look, then
// write. Nothing makes the look and the write one step, which is the flaw the
// point between them exposes.
type naive struct{ base }

func (s *naive) Acquire(ctx context.Context, key string) (*Lease, error) {
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	n, err := s.node().Exists(cctx, key).Result()
	cancel()
	if err != nil {
		return nil, s.unknown("acquire (EXISTS)", key, err)
	}
	if n != 0 {
		return nil, fmt.Errorf("%s: acquire %q: %w", s.name, key, ErrNotAcquired)
	}
	if err := s.at(ctx, vocab.PointBetweenExistsAndSet, key, nil); err != nil {
		return nil, err
	}
	token := s.opts.Tokens()
	cctx, cancel = s.cmdCtx(ctx)
	defer cancel()
	if err := s.node().Set(cctx, key, token, 0).Err(); err != nil {
		return nil, s.unknown("acquire (SET)", key, err)
	}
	// A zero validity: the key never expires, so neither does the lease.
	return NewLease(key, token, Exclusive, start, 0), nil
}

func (s *naive) Release(ctx context.Context, l *Lease) error {
	return releaseKey(ctx, &s.base, l, true)
}
