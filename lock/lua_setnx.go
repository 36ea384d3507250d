package lock

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "lua-setnx",
		Summary:  "one Lua script: SETNX key token + PEXPIRE key ttl; Lua compare-and-delete unlock",
		Weakness: "single master: a failover or restart without fsync loses the key; no fencing, so a paused holder can still write",
		Source:   "《使用Redis实现分布式锁及其优化》 (21CTO; 转 and 追: Lua SETNX+EXPIRE, unique value, compare-and-delete)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &luaSetnx{base: newBase("lua-setnx", n, o)}, nil
		},
		Expires: true, Extendable: true,
	})
	register(Info{
		Name:     "lua-setnx-del",
		Summary:  "one Lua script: SETNX key token + PEXPIRE key ttl; plain DEL unlock",
		Weakness: "DEL unlock removes another owner's lock after this lease expired (the article's own 解锁漏洞)",
		Source:   "《使用Redis实现分布式锁及其优化》 (21CTO; 转: Lua SETNX+EXPIRE with DEL unlock)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &luaSetnx{base: newBase("lua-setnx-del", n, o), delUnlock: true}, nil
		},
		Expires: true, DelUnlock: true, Extendable: true,
	})
}

// setnxPexpire is the script of 《使用Redis实现分布式锁及其优化》 with a
// millisecond TTL (ARGV[2]): the key and its TTL arrive in one step, so no
// crash can fall between them.
var setnxPexpire = newScript(`
if redis.call("SETNX", KEYS[1], ARGV[1]) == 1 then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0`)

// luaSetnx is the scripted lock of 《使用Redis实现分布式锁及其优化》. delUnlock
// keeps the article's first DEL unlock; without it the unlock is the article's
// final compare-and-delete.
type luaSetnx struct {
	base
	delUnlock bool
}

var _ Extender = (*luaSetnx)(nil)

func (s *luaSetnx) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := s.opts.Tokens()
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	n, err := setnxPexpire.run(cctx, s.node(), []string{key}, token, s.opts.TTL.Milliseconds()).Int64()
	if err != nil {
		return nil, s.unknown("acquire", key, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: acquire %q: %w", s.name, key, ErrNotAcquired)
	}
	return s.lease(key, token, Exclusive, start), nil
}

func (s *luaSetnx) Release(ctx context.Context, l *Lease) error {
	return releaseKey(ctx, &s.base, l, s.delUnlock)
}

func (s *luaSetnx) Extend(ctx context.Context, l *Lease) error {
	return extendKey(ctx, &s.base, l)
}
