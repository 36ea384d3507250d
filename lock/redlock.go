package lock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/redis/go-redis/v9"
)

func init() {
	register(Info{
		Name:     "redlock",
		Summary:  "Redlock: SET key token NX PX ttl on N independent masters in parallel; held on a majority with validity TTL - elapsed - (TTL*drift + 2ms) > 0; unlock all on failure",
		Weakness: "trusts bounded clock drift and durable keys: a node that restarts without fsync or whose clock jumps lets two clients hold majorities; no fencing, so a paused holder can still write",
		Source:   "《Redis 实现分布式锁》, 《Redis系列(十三)应用之分布式锁》, Redis docs (\"Distributed Locks with Redis\")",
		New: func(n []redis.UniversalClient, o Options) (Locker, error) {
			if len(n) > 64 {
				return nil, fmt.Errorf("redlock: %d nodes: at most 64", len(n))
			}
			return &redlock{base: newBase("redlock", n, o)}, nil
		},
		MultiNode: true, Expires: true, Watchdog: true, Extendable: true,
	})
}

// redlock is the Redis docs' algorithm over every node as an independent
// master. One Acquire is one attempt; the random retry delay comes from the
// shared Blocking with the design's own random source.
type redlock struct {
	base
}

var _ Extender = (*redlock)(nil)

// redlockTally counts one round of a command sent to every node: did (the node
// did what was asked), refused (a definite no) and failed (no reply in time
// or an error: the command may or may not have taken effect there).
type redlockTally struct {
	did, refused, failed int
	errs                 error  // the failed nodes' errors, joined
	yes                  uint64 // bit i: node i did it (nodes are at most 64)
}

// granted lists the nodes that did it, ascending; built only where a lease
// or an error needs it, not on every unlock round.
func (t redlockTally) granted() []int {
	out := make([]int, 0, t.did)
	for i := range 64 {
		if t.yes&(1<<i) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// redlockReply is one node's answer in a round.
type redlockReply struct {
	ok  bool
	err error
}

// redlockCmd is the command a round sends to every node: SET NX PX of the
// token, or compare-and-delete or compare-and-pexpire of it. It travels in
// the round (one allocation per round) rather than as a closure, which
// would be a second.
type redlockCmd struct {
	kind  redlockKind
	key   string
	value any // the token, boxed once for every node's command
	ttl   any // compare-and-pexpire's milliseconds, boxed once
}

type redlockKind uint8

const (
	redlockSet redlockKind = iota
	redlockUnlock
	redlockExtend
)

// run sends the command to one node: (true, nil) when the node did it,
// (false, nil) for a definite refusal, and an error otherwise. keys is the
// round's one-key list, which go-redis copies into each command.
func (c *redlockCmd) run(ctx context.Context, node redis.UniversalClient, ttl time.Duration, keys []string) (bool, error) {
	switch c.kind {
	case redlockSet:
		return node.SetNX(ctx, c.key, c.value, ttl).Result()
	case redlockUnlock:
		n, err := compareAndDelete.run(ctx, node, keys, c.value).Int64()
		return n == 1, err
	}
	n, err := compareAndPexpire.run(ctx, node, keys, c.value, c.ttl).Int64()
	return n == 1, err
}

// redlockRound is what one round's goroutines share: one allocation per
// round for the command, its key list, the replies and the wait group
// together, up to 8 nodes.
type redlockRound struct {
	wg      sync.WaitGroup
	cmd     redlockCmd
	keys    [1]string
	replies []redlockReply
	buf     [8]redlockReply
}

// stackFrame is growStack's frame, in bytes: with it a goroutine's stack
// grows to 32 KiB, which a command through go-redis does not outgrow.
const stackFrame = 16 << 10

// growStack grows a new goroutine's stack in one step, while it holds
// one frame; grown on the way, the stack of a node's command is copied two
// or three times, each time with every frame of go-redis's call chain on
// it to move (about a tenth of a redlock run's CPU).
//
//go:noinline
func growStack() byte {
	var b [stackFrame]byte
	b[stackIndex] = 1
	return b[len(b)-1-stackIndex]
}

// stackIndex keeps growStack's frame from being optimised away: the
// compiler cannot tell what it holds (0, never written).
var stackIndex int

// onAll runs cmd on every node in parallel, each bounded by NodeTimeout,
// and waits for all of them. The last node's command goes from the
// calling goroutine, whose stack is already grown, while the others'
// goroutines run theirs.
func (r *redlock) onAll(ctx context.Context, cmd redlockCmd) redlockTally {
	// The commands start together, so one deadline bounds each of them by
	// NodeTimeout (one timer per round instead of one per node).
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n := len(r.nodes)
	if n == 0 {
		return redlockTally{}
	}
	rd := &redlockRound{cmd: cmd}
	rd.keys[0] = cmd.key
	rd.replies = rd.buf[:0]
	if n > len(rd.buf) {
		rd.replies = make([]redlockReply, 0, n)
	}
	rd.replies = rd.replies[:n]
	ttl := r.opts.TTL
	rd.wg.Add(n - 1)
	for i, node := range r.nodes[:n-1] {
		// A plain go statement: wg.Go would wrap each closure in a second
		// one, an allocation per node and round on the hot path.
		go func() {
			defer rd.wg.Done()
			growStack()
			ok, err := rd.cmd.run(cctx, node, ttl, rd.keys[:])
			rd.replies[i] = redlockReply{ok, err}
		}()
	}
	ok, err := rd.cmd.run(cctx, r.nodes[n-1], ttl, rd.keys[:])
	rd.replies[n-1] = redlockReply{ok, err}
	rd.wg.Wait()
	var t redlockTally
	for i, rep := range rd.replies {
		switch {
		case rep.err != nil:
			t.failed++
			t.errs = errors.Join(t.errs, fmt.Errorf("node %d: %w", i, rep.err))
		case rep.ok:
			t.did++
			t.yes |= 1 << i
		default:
			t.refused++
		}
	}
	return t
}

func (r *redlock) quorum() int { return Quorum(len(r.nodes)) }

// Acquire is one Redlock attempt. The clock is read exactly twice (before
// the first SET is sent and after the last reply or timeout), so elapsed
// covers the whole round.
//
// A failed attempt always reports ErrNotAcquired, even when some nodes did
// not answer. A Redlock lock is held only by a client that counted a
// majority within the validity; this client has decided it did not, will
// not act as the holder, and sends the unlock round to every node (also to
// those that did not answer, since a lost reply may hide a SET that took
// effect). Whatever the unlock round fails to delete is a key no client
// relies on, like a crashed holder's, and it expires within the TTL. So the
// outcome is a definite "not held", and Blocking may retry after a random
// delay, as the algorithm prescribes. The per-node errors are kept in the
// message but not wrapped, so that the error classifies only as a refusal.
func (r *redlock) Acquire(ctx context.Context, key string) (*Lease, error) {
	token := r.opts.Tokens()
	start := r.now()
	t := r.onAll(ctx, redlockCmd{kind: redlockSet, key: key, value: token})
	elapsed := r.now().Sub(start)
	validity := RedlockValidity(r.opts.TTL, elapsed, r.opts.Drift)
	if t.did >= r.quorum() && validity > 0 {
		l := NewLease(key, token, Exclusive, start, validity)
		l.Granted, l.Asked = t.granted(), len(r.nodes)
		if r.opts.Watchdog {
			startWatchdog(r.opts, l, func(ctx context.Context) error { return r.Extend(ctx, l) }, r.variant)
		}
		return l, nil
	}
	// The unlock round goes out even if ctx has ended: it is what makes the
	// failure definite, and each command is still bounded by NodeTimeout.
	u := r.unlockAll(context.WithoutCancel(ctx), key, token)
	round := &RoundError{Granted: t.granted(), Asked: len(r.nodes), Refused: t.refused, Need: r.quorum(), Validity: validity}
	return nil, fmt.Errorf("%s: acquire %q: %w: set on %d of %d nodes (need %d), %d refused, %d no reply; validity %v after %v; unlock round deleted %d, %d no reply%s%w",
		r.name, key, ErrNotAcquired, t.did, len(r.nodes), r.quorum(), t.refused, t.failed,
		validity, elapsed, u.did, u.failed, redlockErrDetail(t.errs), round)
}

// unlockAll sends compare-and-delete to every node in parallel. The nodes'
// commands share the key list and the boxed token: go-redis copies them
// into each command's arguments and keeps neither.
func (r *redlock) unlockAll(ctx context.Context, key, token string) redlockTally {
	return r.onAll(ctx, redlockCmd{kind: redlockUnlock, key: key, value: token})
}

// Release stops the watchdog and deletes the key, where it is still ours, on
// every node in parallel. The lock is held iff a majority has our token, so:
// deleted on a majority means released (at most a minority, the unanswered
// nodes, can still hold our key, and nobody can count a majority with it);
// ours on no majority even counting every unanswered node means the lease
// had already lapsed, ErrNotHeld (the nodes that still had our token are
// cleaned all the same); anything between is an unknown outcome, with the
// per-node errors joined.
func (r *redlock) Release(ctx context.Context, l *Lease) error {
	l.stop()
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	t := r.unlockAll(ctx, l.Key, l.Token)
	switch {
	case t.did >= r.quorum():
		return nil
	case t.did+t.failed < r.quorum():
		return fmt.Errorf("%s: release %q: %w: ours on %d of %d nodes (need %d), %d no reply%s",
			r.name, l.Key, ErrNotHeld, t.did, len(r.nodes), r.quorum(), t.failed, redlockErrDetail(t.errs))
	}
	return r.unknown("release", l.Key, fmt.Errorf("deleted on %d of %d nodes (need %d), %d not ours: %w",
		t.did, len(r.nodes), r.quorum(), t.refused, t.errs))
}

// Extend resets the TTL on every node that still has our token. It succeeds
// when a majority did so with validity left, measured like an acquire; the
// lease's window then starts when the round was sent. ErrNotHeld means a
// majority is out of reach even if every unanswered node had extended.
// A majority that answered too late leaves the window as it was and is
// reported as an unknown outcome (the keys were extended, the lease was not).
func (r *redlock) Extend(ctx context.Context, l *Lease) error {
	start := r.now()
	t := r.onAll(ctx, redlockCmd{kind: redlockExtend, key: l.Key, value: l.Token, ttl: r.opts.TTL.Milliseconds()})
	elapsed := r.now().Sub(start)
	validity := RedlockValidity(r.opts.TTL, elapsed, r.opts.Drift)
	switch {
	case t.did >= r.quorum() && validity > 0:
		l.renewed(start, validity)
		return nil
	case t.did >= r.quorum():
		return r.unknown("extend", l.Key, fmt.Errorf("extended on %d of %d nodes but validity %v after %v", t.did, len(r.nodes), validity, elapsed))
	case t.did+t.failed < r.quorum():
		return fmt.Errorf("%s: extend %q: %w: ours on %d of %d nodes (need %d), %d no reply%s",
			r.name, l.Key, ErrNotHeld, t.did, len(r.nodes), r.quorum(), t.failed, redlockErrDetail(t.errs))
	}
	return r.unknown("extend", l.Key, fmt.Errorf("extended on %d of %d nodes (need %d): %w", t.did, len(r.nodes), r.quorum(), t.errs))
}

// redlockErrDetail renders per-node errors for a message without wrapping them.
func redlockErrDetail(err error) string {
	if err == nil {
		return ""
	}
	return " (" + strings.ReplaceAll(err.Error(), "\n", "; ") + ")"
}
