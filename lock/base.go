package lock

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// base is what every design built here shares: its name, options, its own
// random source and the node(s) it talks to.
type base struct {
	name  string
	opts  Options
	rnd   *rand.Rand
	nodes []redis.UniversalClient
	// notify is the notified waiter's subscriber (Options.Wait notify).
	notify *notifier
	// variant is the choice a variant of the design makes the other way
	// (variants.go); zero for the built-in design.
	variant variant
}

func newBase(name string, nodes []redis.UniversalClient, o Options) base {
	return base{name: name, opts: o, rnd: newRand(o.Seed), nodes: nodes, notify: &notifier{}}
}

func (b *base) Name() string { return b.name }

// node is the single node of single-node designs.
func (b *base) node() redis.UniversalClient { return b.nodes[0] }

func (b *base) now() time.Time { return b.opts.Clock.Now() }

// at announces a point; an error means the client was stopped there.
func (b *base) at(ctx context.Context, p Point, key string, l *Lease) error {
	if err := b.opts.Hook(ctx, Event{Point: p, Key: key, Lease: l}); err != nil {
		return fmt.Errorf("%s: stopped at %s: %w", b.name, p, err)
	}
	return nil
}

// cmdCtx bounds one command to one node; without a NodeTimeout the
// connection's own read/write timeouts do.
func (b *base) cmdCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.opts.NodeTimeout == 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, b.opts.NodeTimeout)
}

// unknown wraps an error whose outcome is not known.
func (b *base) unknown(op, key string, err error) error {
	return fmt.Errorf("%s: %s %q: outcome unknown: %w", b.name, op, key, err)
}

// lease builds a lease whose validity is measured from start (client clock).
func (b *base) lease(key, token string, mode Mode, start time.Time) *Lease {
	return NewLease(key, token, mode, start, Validity(b.opts.TTL, b.now().Sub(start), b.opts.Drift))
}
