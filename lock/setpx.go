package lock

import (
	"context"
	"fmt"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "setpx",
		Summary:  "SET key token NX PX ttl; Lua compare-and-delete unlock",
		Weakness: "single master: a failover or restart without fsync loses the key; no fencing, so a paused holder can still write",
		Source:   "《Redis 实现分布式锁》, Redis docs (\"SET\" command page)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &setPX{base: newBase("setpx", n, o)}, nil
		},
		Expires: true, Watchdog: true, Extendable: true, Notify: true,
	})
	register(Info{
		Name:     "setpx-del",
		Summary:  "SET key token NX PX ttl; plain DEL unlock (known-bad control)",
		Weakness: "DEL unlock removes another owner's lock after this lease expired",
		Source:   "《Redis系列(十三)应用之分布式锁》 (step 5)",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &setPX{base: newBase("setpx-del", n, o), delUnlock: true}, nil
		},
		Expires: true, DelUnlock: true, Extendable: true,
	})
}

// setPX is the single-instance lock of the Redis docs: one atomic SET NX PX
// with a unique token. delUnlock swaps the compare-and-delete for a DEL.
type setPX struct {
	base
	delUnlock bool
}

var _ Extender = (*setPX)(nil)

func (s *setPX) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := s.opts.Tokens()
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	// SetNX with a TTL sends SET key token PX ttl NX (EX for whole
	// seconds): the same command as SetArgs, with a lighter reply (a bool,
	// not a status plus redis.Nil).
	ok, err := s.node().SetNX(cctx, key, token, s.opts.TTL).Result()
	if err != nil {
		return nil, s.unknown("acquire", key, err)
	}
	if !ok {
		return nil, ErrNotAcquired
	}
	l := s.lease(key, token, Exclusive, start)
	if s.opts.Watchdog {
		startWatchdog(s.opts, l, func(ctx context.Context) error { return s.Extend(ctx, l) }, s.variant)
	}
	return l, nil
}

func (s *setPX) Release(ctx context.Context, l *Lease) error {
	l.stop()
	return releaseKey(ctx, &s.base, l, s.delUnlock)
}

func (s *setPX) Extend(ctx context.Context, l *Lease) error {
	return extendKey(ctx, &s.base, l)
}

// releaseKey is the unlock of the string-valued designs: compare-and-delete,
// or the articles' plain DEL when del is set.
func releaseKey(ctx context.Context, b *base, l *Lease, del bool) error {
	if err := b.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	cctx, cancel := b.cmdCtx(ctx)
	defer cancel()
	var n int64
	var err error
	if del {
		n, err = b.node().Del(cctx, l.Key).Result()
	} else {
		n, err = compareAndDelete.run(cctx, b.node(), b.releaseKeys(l.Key), l.Token).Int64()
	}
	if err != nil {
		return b.unknown("release", l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: release %q: %w", b.name, l.Key, ErrNotHeld)
	}
	return nil
}

// extendKey resets the TTL of a string-valued lock if the token still matches.
func extendKey(ctx context.Context, b *base, l *Lease) error {
	start := b.now()
	cctx, cancel := b.cmdCtx(ctx)
	defer cancel()
	n, err := compareAndPexpire.run(cctx, b.node(), []string{l.Key}, l.Token, b.opts.TTL.Milliseconds()).Int64()
	if err != nil {
		return b.unknown("extend", l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: extend %q: %w", b.name, l.Key, ErrNotHeld)
	}
	l.renewed(start, Validity(b.opts.TTL, b.now().Sub(start), b.opts.Drift))
	return nil
}
