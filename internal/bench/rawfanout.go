package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
)

// compareAndDelete is the raw loop's unlock, the Redis docs' script.
var compareAndDelete = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)

// rawWorker is the raw limit at N nodes: what a lock cycle costs with
// nothing but go-redis between the client and the nodes. SET key token NX
// PX ttl to every node (in parallel when there are several), held when a
// majority said yes; on a refusal the compare-and-delete goes to every
// node (as any majority lock must undo a partial round), then the same
// retry wait as lock.Blocking; hold; then EVALSHA of compare-and-delete on
// every node, released when a majority deleted. One node is the plain
// single-instance loop, without goroutines. No lease, no clock, no hook,
// no per-command context: each command is bounded by go-redis's own read
// timeout. The token is made as the designs make theirs (lock.RandomToken),
// so it costs the same.
type rawWorker struct {
	conns []redis.UniversalClient // one per node, or one Redis Cluster client
	key   string
	ttl   time.Duration
	retry lock.RetryPolicy
	hold  time.Duration
	rnd   *rand.Rand

	replies []rawReply // one per node, reused every round
	wg      sync.WaitGroup
}

// rawReply is one node's answer in a round.
type rawReply struct {
	ok  bool
	err error
}

func newRawWorker(conns []redis.UniversalClient, key string, ttl time.Duration, retry lock.RetryPolicy, hold time.Duration, rnd *rand.Rand) *rawWorker {
	return &rawWorker{conns: conns, key: key, ttl: ttl, retry: retry, hold: hold, rnd: rnd, replies: make([]rawReply, len(conns))}
}

func (w *rawWorker) close() {
	for _, c := range w.conns {
		_ = c.Close()
	}
}

// quorum is the majority of the worker's nodes (1 of 1).
func (w *rawWorker) quorum() int { return lock.Quorum(len(w.conns)) }

// round sends one command per node, in parallel when there are several,
// and counts the nodes that said yes; err is the first error, if no
// majority said yes.
func (w *rawWorker) round(ctx context.Context, set bool, token string) (yes int, err error) {
	one := func(c redis.UniversalClient) (bool, error) {
		if set {
			return c.SetNX(ctx, w.key, token, w.ttl).Result()
		}
		n, err := c.EvalSha(ctx, compareAndDelete.Hash(), []string{w.key}, token).Int64()
		return n == 1, err
	}
	if len(w.conns) == 1 {
		ok, err := one(w.conns[0])
		if ok {
			return 1, nil
		}
		return 0, err
	}
	for i, c := range w.conns {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			ok, err := one(c)
			w.replies[i] = rawReply{ok, err}
		}()
	}
	w.wg.Wait()
	for _, r := range w.replies {
		switch {
		case r.ok:
			yes++
		case r.err != nil && err == nil:
			err = r.err
		}
	}
	if yes >= w.quorum() {
		err = nil
	}
	return yes, err
}

func (w *rawWorker) run(ctx context.Context, s *segment, m *meter) {
	var clk lock.Clock = segmentClock{s}
	for {
		t0 := time.Now()
		if s.over(t0) {
			return
		}
		token := lock.RandomToken()
		held, err := false, error(nil)
		for {
			m.attempts++
			var yes int
			yes, err = w.round(ctx, true, token)
			if held = yes >= w.quorum(); held || err != nil {
				break
			}
			m.refused++
			if yes > 0 { // a minority took the key: give it back
				_, _ = w.round(ctx, false, token)
			}
			wait := w.retry.Interval
			if w.retry.Jitter > 0 {
				wait += time.Duration(w.rnd.Int64N(int64(w.retry.Jitter)))
			}
			if err = clk.Sleep(ctx, wait); err != nil {
				break
			}
		}
		t1 := time.Now()
		if !held {
			if s.over(t1) || ctx.Err() != nil {
				return
			}
			if len(w.conns) > 1 {
				_, _ = w.round(ctx, false, token) // a lost reply may hide a SET
			}
			m.fail(fmt.Errorf("raw: acquire %q: %w", w.key, err))
			_ = clk.Sleep(ctx, w.retry.Interval)
			continue
		}
		holdFor(w.hold)
		yes, err := w.round(ctx, false, token)
		t2 := time.Now()
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			m.fail(fmt.Errorf("raw: release %q: %w", w.key, err))
			continue
		case yes < w.quorum():
			m.fail(fmt.Errorf("raw: release %q: %w", w.key, lock.ErrNotHeld))
			continue
		}
		if t2.After(s.deadline) {
			return
		}
		m.done(t1.Sub(t0), t2.Sub(t0))
	}
}
