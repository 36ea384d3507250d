package lock

import (
	"context"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "setnx-expire",
		Summary:  "SETNX key token, then PEXPIRE key ttl as a second command; DEL unlock",
		Weakness: "a crash or lost connection between SETNX and EXPIRE leaves a key without TTL: deadlock; DEL removes another owner's lock after this one expired",
		Source:   "《使用Redis实现分布式锁及其优化》 (21CTO; 起: SETNX + EXPIRE), 《Redis系列(十三)应用之分布式锁》 (服务宕机 / 又是原子性)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &setnxExpire{base: newBase("setnx-expire", n, o)}, nil
		},
		Expires: true, DelUnlock: true,
	})
}

// setnxExpire takes the lock and gives it a TTL in two commands, which is
// exactly what the point between them lets a simulator break.
type setnxExpire struct{ base }

func (s *setnxExpire) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := s.opts.Tokens()
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	ok, err := s.node().SetNX(cctx, key, token, 0).Result()
	cancel()
	if err != nil {
		return nil, s.unknown("acquire (SETNX)", key, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: acquire %q: %w", s.name, key, ErrNotAcquired)
	}
	if err := s.at(ctx, vocab.PointBetweenSetnxAndExpire, key, nil); err != nil {
		return nil, err
	}
	cctx, cancel = s.cmdCtx(ctx)
	defer cancel()
	if err := s.node().PExpire(cctx, key, s.opts.TTL).Err(); err != nil {
		// The article's failure: the key may now live forever. Nothing here
		// can make that right, so the outcome is reported as unknown.
		return nil, s.unknown("acquire (PEXPIRE)", key, err)
	}
	// Like the article, the reply is not looked at: had a stray DEL removed
	// the key between the two commands, this client would still believe it
	// holds the lock, and the claim check is there to catch that.
	return s.lease(key, token, Exclusive, start), nil
}

func (s *setnxExpire) Release(ctx context.Context, l *Lease) error {
	return releaseKey(ctx, &s.base, l, true)
}
