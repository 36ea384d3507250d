package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/bsm/redislock"
	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:    "redislock",
		Summary: "peer: github.com/bsm/redislock (Lua SET-if-absent + PEXPIRE, compare-and-delete) on one node, no retry per attempt",
		Weakness: "single master: a failover or restart without fsync loses the key; no fencing; " +
			"it has no validity of its own (locksim computes TTL - elapsed - TTL*drift on the client clock)",
		Source: "github.com/bsm/redislock v0.10.0",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			return &redislockLocker{
				base:   newBase("redislock", n, o),
				client: redislock.New(n[0]),
				held:   map[peerLeaseKey]*redislock.Lock{},
			}, nil
		},
		Expires: true, Extendable: true, Peer: true,
	})
}

// redislockLocker adapts bsm/redislock to Locker. Release and Refresh are
// methods of the library's *Lock, which the adapter keeps by lease.
// obtain.lua lets a caller whose token equals the first len(token) bytes of
// the stored value take the lock over (its re-obtain path); with
// fixed-length random tokens, as Options.Tokens gives by default, no other
// owner can match.
type redislockLocker struct {
	base
	client *redislock.Client

	mu   sync.Mutex
	held map[peerLeaseKey]*redislock.Lock
}

var _ Extender = (*redislockLocker)(nil)

// Acquire is one Obtain with NoRetry. The command context always has a
// deadline (NodeTimeout), so redislock never derives one from time.Now.
func (p *redislockLocker) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := p.opts.Tokens()
	cctx, cancel := p.cmdCtx(ctx)
	defer cancel()
	start := p.now()
	lk, err := p.client.Obtain(cctx, key, p.opts.TTL, &redislock.Options{RetryStrategy: redislock.NoRetry(), Token: token})
	elapsed := p.now().Sub(start)
	if errors.Is(err, redislock.ErrNotObtained) {
		return nil, fmt.Errorf("%s: acquire %q: %w", p.name, key, ErrNotAcquired)
	}
	if err != nil {
		return nil, p.unknown("acquire", key, err)
	}
	p.mu.Lock()
	p.held[peerLeaseKey{key, token}] = lk
	p.mu.Unlock()
	return NewLease(key, token, Exclusive, start, peerValidity(p.opts.TTL, elapsed, p.opts.Drift)), nil
}

// Release deletes the key if it still holds our token (release.lua).
func (p *redislockLocker) Release(ctx context.Context, l *Lease) error {
	if err := p.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	k := peerLeaseKey{l.Key, l.Token}
	p.mu.Lock()
	lk := p.held[k]
	delete(p.held, k)
	p.mu.Unlock()
	if lk == nil {
		return fmt.Errorf("%s: release %q: %w (not a lease of this locker, or released before)", p.name, l.Key, ErrNotHeld)
	}
	cctx, cancel := p.cmdCtx(ctx)
	defer cancel()
	err := lk.Release(cctx)
	switch {
	case errors.Is(err, redislock.ErrLockNotHeld):
		return fmt.Errorf("%s: release %q: %w", p.name, l.Key, ErrNotHeld)
	case err != nil:
		return p.unknown("release", l.Key, err)
	}
	return nil
}

// Extend is Refresh with the TTL (refresh.lua: PEXPIRE if the token still
// matches), without retry.
func (p *redislockLocker) Extend(ctx context.Context, l *Lease) error {
	p.mu.Lock()
	lk := p.held[peerLeaseKey{l.Key, l.Token}]
	p.mu.Unlock()
	if lk == nil {
		return fmt.Errorf("%s: extend %q: %w (not a lease of this locker, or released)", p.name, l.Key, ErrNotHeld)
	}
	cctx, cancel := p.cmdCtx(ctx)
	defer cancel()
	start := p.now()
	err := lk.Refresh(cctx, p.opts.TTL, &redislock.Options{RetryStrategy: redislock.NoRetry()})
	elapsed := p.now().Sub(start)
	switch {
	case errors.Is(err, redislock.ErrNotObtained):
		return fmt.Errorf("%s: extend %q: %w", p.name, l.Key, ErrNotHeld)
	case err != nil:
		return p.unknown("extend", l.Key, err)
	}
	l.renewed(start, peerValidity(p.opts.TTL, elapsed, p.opts.Drift))
	return nil
}
