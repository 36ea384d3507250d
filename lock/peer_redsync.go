package lock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:    "redsync",
		Summary: "peer: github.com/go-redsync/redsync/v4 (Redlock in Go) over every node, one TryLock per attempt",
		Weakness: "Redlock's flaws (node restart without fsync, node clock jumps); its timers and validity use the system clock, " +
			"so client clock faults do not reach it; its validity has no 2 ms floor; no fencing",
		Source: "github.com/go-redsync/redsync/v4 v4.18.0",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			pools := make([]redsyncredis.Pool, len(n))
			for i, c := range n {
				pools[i] = redsyncgoredis.NewPool(c)
			}
			return &redsyncLocker{
				base: newBase("redsync", n, o),
				rs:   redsync.New(pools...),
				held: map[peerLeaseKey]*redsync.Mutex{},
			}, nil
		},
		MultiNode: true, Expires: true, Extendable: true, Peer: true,
	})
}

// peerLeaseKey finds the library's own lock object of a lease.
type peerLeaseKey struct{ key, token string }

// redsyncLocker adapts redsync to Locker. redsync keeps the token and its
// own validity in a *Mutex, which Release and Extend need back; the adapter
// keeps them by lease.
type redsyncLocker struct {
	base
	rs *redsync.Redsync

	mu   sync.Mutex
	held map[peerLeaseKey]*redsync.Mutex
}

var _ Extender = (*redsyncLocker)(nil)

// Acquire makes one redsync attempt (WithTries(1)). redsync bounds the
// whole parallel SET round by TTL*timeoutFactor, which is set so that each
// node gets NodeTimeout. On failure redsync has already sent its unlock
// round to every node; the attempt is a definite "no" for the same reason
// as redlock's (see redlock.Acquire), so every lock failure maps to
// ErrNotAcquired.
func (p *redsyncLocker) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := p.opts.Tokens()
	m := p.rs.NewMutex(key,
		redsync.WithExpiry(p.opts.TTL),
		redsync.WithTries(1),
		redsync.WithDriftFactor(p.opts.Drift),
		redsync.WithTimeoutFactor(float64(p.opts.NodeTimeout)/float64(p.opts.TTL)),
		redsync.WithGenValueFunc(func() (string, error) { return token, nil }),
	)
	start := p.now()
	err := m.TryLockContext(ctx)
	elapsed := p.now().Sub(start)
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %q: %w (%s)", p.name, key, ErrNotAcquired, peerErrText(err))
	}
	p.mu.Lock()
	p.held[peerLeaseKey{key, token}] = m
	p.mu.Unlock()
	// redsync's own formula (Mutex.lockContext): TTL - elapsed - TTL*drift,
	// without Redlock's 2 ms, on our clock instead of its time.Now.
	return NewLease(key, token, Exclusive, start, peerValidity(p.opts.TTL, elapsed, p.opts.Drift)), nil
}

// Release unlocks through redsync, which reports success only when a
// majority deleted our token. A failure is ErrNotHeld unless a node did not
// answer.
func (p *redsyncLocker) Release(ctx context.Context, l *Lease) error {
	if err := p.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	k := peerLeaseKey{l.Key, l.Token}
	p.mu.Lock()
	m := p.held[k]
	delete(p.held, k)
	p.mu.Unlock()
	if m == nil {
		return fmt.Errorf("%s: release %q: %w (not a lease of this locker, or released before)", p.name, l.Key, ErrNotHeld)
	}
	cctx, cancel := p.cmdCtx(ctx)
	defer cancel()
	ok, err := m.UnlockContext(cctx)
	switch {
	case ok:
		return nil
	case redsyncNodeErrors(err) > 0:
		return p.unknown("release", l.Key, err)
	}
	return fmt.Errorf("%s: release %q: %w (%s)", p.name, l.Key, ErrNotHeld, peerErrText(err))
}

// Extend resets the TTL through redsync's ExtendContext (majority needed).
// ErrNotHeld when the nodes that refused leave no majority possible;
// redsync's ErrExtendFailed (a majority, but too late by its clock) and node
// errors are unknown outcomes.
func (p *redsyncLocker) Extend(ctx context.Context, l *Lease) error {
	p.mu.Lock()
	m := p.held[peerLeaseKey{l.Key, l.Token}]
	p.mu.Unlock()
	if m == nil {
		return fmt.Errorf("%s: extend %q: %w (not a lease of this locker, or released)", p.name, l.Key, ErrNotHeld)
	}
	cctx, cancel := p.cmdCtx(ctx)
	defer cancel()
	start := p.now()
	ok, err := m.ExtendContext(cctx)
	elapsed := p.now().Sub(start)
	if ok {
		l.renewed(start, peerValidity(p.opts.TTL, elapsed, p.opts.Drift))
		return nil
	}
	var taken *redsync.ErrTaken
	switch {
	case errors.As(err, &taken),
		err != nil && !errors.Is(err, redsync.ErrExtendFailed) &&
			len(p.nodes)-redsyncRefusals(err) < Quorum(len(p.nodes)):
		return fmt.Errorf("%s: extend %q: %w (%s)", p.name, l.Key, ErrNotHeld, peerErrText(err))
	case err == nil:
		err = errors.New("redsync: extend failed")
	}
	return p.unknown("extend", l.Key, err)
}

// redsyncErrs lists the per-node errors of a redsync round, which joins
// them one at a time (errors.Join nested once per node).
func redsyncErrs(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, redsyncErrs(e)...)
	}
	return out
}

// redsyncNodeErrors counts nodes that did not answer (RedisError).
func redsyncNodeErrors(err error) int {
	n := 0
	for _, e := range redsyncErrs(err) {
		var re *redsync.RedisError
		if errors.As(e, &re) {
			n++
		}
	}
	return n
}

// redsyncRefusals counts nodes that answered without our token.
func redsyncRefusals(err error) int {
	n := 0
	for _, e := range redsyncErrs(err) {
		var nt *redsync.ErrNodeTaken
		if errors.As(e, &nt) || errors.Is(e, redsync.ErrLockAlreadyExpired) {
			n++
		}
	}
	return n
}

// peerValidity is TTL - elapsed - TTL*drift, never exactly 0: a Lease with
// validity 0 would read as "never expires".
func peerValidity(ttl, elapsed time.Duration, drift float64) time.Duration {
	v := Validity(ttl, elapsed, drift)
	if v == 0 {
		v = -1
	}
	return v
}

// peerErrText renders a (possibly joined) library error on one line.
func peerErrText(err error) string {
	if err == nil {
		return "no error given"
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
