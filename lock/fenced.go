package lock

import (
	"context"
	"strings"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "fenced",
		Summary:  "setpx, then INCR {<key>}:fence on the same node (and, on a Redis Cluster, slot): each lease carries a strictly growing fencing token",
		Weakness: "safe only if the resource checks the tokens; the counter lives on one master, so a failover or restart without fsync can repeat tokens",
		Source:   "Martin Kleppmann, \"How to do distributed locking\" (2016; fencing tokens), over the SET NX PX lock of 《Redis 实现分布式锁》",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			inner := o
			inner.Watchdog = false // started here, once the lease has its fence
			return &fenced{setPX: setPX{base: newBase("fenced", n, inner)}, watchdog: o.Watchdog}, nil
		},
		Expires: true, Fencing: true, Watchdog: true, Extendable: true, Notify: true,
	})
}

// fenced is setpx plus a fencing token. Release and Extend are setpx's; only
// Acquire adds the counter.
type fenced struct {
	setPX
	watchdog bool
}

var _ Extender = (*fenced)(nil)

// fenceCounterKey holds the per-key counter; it has no TTL, so tokens keep
// growing across leases. Its name hashes to the lock key's Redis Cluster
// slot, so that on a cluster the counter lives on the lock key's master
// and moves with it (see slotTagged).
func fenceCounterKey(key string) string { return slotTagged(key) + ":fence" }

// slotTagged is key written so that a suffix appended to it keeps key's
// Redis Cluster hash slot: key itself when it already holds a hash tag
// (a "{...}" with something inside, whose content alone is hashed), else
// "{key}", whose tag is the whole of key.
func slotTagged(key string) string {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if end := strings.IndexByte(key[open+1:], '}'); end > 0 {
			return key
		}
	}
	return "{" + key + "}"
}

func (f *fenced) Acquire(ctx context.Context, key string) (*Lease, error) {
	l, err := f.setPX.Acquire(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := f.at(ctx, vocab.PointBetweenSetAndIncr, key, l); err != nil {
		return nil, err
	}
	cctx, cancel := f.cmdCtx(ctx)
	fence, err := f.node().Incr(cctx, fenceCounterKey(key)).Result()
	cancel()
	if err != nil {
		// A lease without a token is useless to the caller. Give the key back
		// (best effort, even if ctx has ended); whether the INCR happened is
		// unknown, which only costs a gap in the tokens.
		rctx, rcancel := f.cmdCtx(context.WithoutCancel(ctx))
		_ = compareAndDelete.run(rctx, f.node(), []string{key}, l.Token).Err()
		rcancel()
		return nil, f.unknown("acquire (INCR fence)", key, err)
	}
	l.Fence = fence
	// The validity is measured again: it must also cover the INCR (and any
	// pause before it).
	start, _ := l.Window()
	l.renewed(start, Validity(f.opts.TTL, f.now().Sub(start), f.opts.Drift))
	if f.watchdog {
		startWatchdog(f.opts, l, func(ctx context.Context) error { return f.Extend(ctx, l) }, f.variant)
	}
	return l, nil
}
