package explore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// The mutants of the mutation suite: the built-in designs rebuilt from
// package lock's exported parts (lock.NewLease, lock.Validity,
// lock.StartWatchdog, the hook), each with one line changed, registered
// under mutant-* names with Like set to the design they were copied from.
// Each mutation names the line it changes.

// Mutations of the SET NX PX lock (lock/setpx.go).
const (
	mDelUnlock      = "del-unlock"        // release: DEL, no owner check
	mGetThenDel     = "get-then-del"      // release: GET, compare in the client, then DEL
	mSetWithoutNX   = "set-without-nx"    // acquire: SET PX without NX
	mExMsAsSeconds  = "ex-ms-as-seconds"  // acquire: the TTL's milliseconds passed as seconds
	mValidityReply  = "validity-reply"    // acquire: validity measured from the reply, not the send
	mRenewAny       = "renew-any"         // extend: PEXPIRE without owner check
	mPexpireSeconds = "pexpire-seconds"   // extend: the TTL's seconds passed as milliseconds
	mExtendRefusal  = "extend-ignores-no" // extend: a refused renewal counts as renewed
	mFenceClock     = "fence-clock"       // fenced acquire: the token from the client's clock, not INCR
)

var (
	mCompareAndDelete = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)
	mCompareAndPexpire = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)

// mutantCommon is what the mutants share with lock's base.
type mutantCommon struct {
	name  string
	nodes []redis.UniversalClient
	o     lock.Options
}

func (m *mutantCommon) Name() string   { return m.name }
func (m *mutantCommon) now() time.Time { return m.o.Clock.Now() }

func (m *mutantCommon) cmdCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if m.o.NodeTimeout == 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, m.o.NodeTimeout)
}

func (m *mutantCommon) at(ctx context.Context, p lock.Point, key string, l *lock.Lease) error {
	if err := m.o.Hook(ctx, lock.Event{Point: p, Key: key, Lease: l}); err != nil {
		return fmt.Errorf("%s: stopped at %s: %w", m.name, p, err)
	}
	return nil
}

func (m *mutantCommon) unknown(op, key string, err error) error {
	return fmt.Errorf("%s: %s %q: outcome unknown: %w", m.name, op, key, err)
}

// mutantSetPX is setpx (and, with fence, fenced) with one mutation.
type mutantSetPX struct {
	mutantCommon
	mutation string
	fence    bool // fenced: a token after the SET
}

func (s *mutantSetPX) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	node := s.nodes[0]
	token := s.o.Tokens()
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	var ok bool
	var err error
	switch s.mutation {
	case mSetWithoutNX:
		err = node.Set(cctx, key, token, s.o.TTL).Err()
		ok = err == nil
	case mExMsAsSeconds:
		ok, err = node.SetNX(cctx, key, token, time.Duration(s.o.TTL.Milliseconds())*time.Second).Result()
	default:
		ok, err = node.SetNX(cctx, key, token, s.o.TTL).Result()
	}
	if err != nil {
		return nil, s.unknown("acquire", key, err)
	}
	if !ok {
		return nil, lock.ErrNotAcquired
	}
	if s.mutation == mValidityReply {
		start = s.now()
	}
	l := lock.NewLease(key, token, lock.Exclusive, start, lock.Validity(s.o.TTL, s.now().Sub(start), s.o.Drift))
	if s.fence {
		if err := s.at(ctx, vocab.PointBetweenSetAndIncr, key, l); err != nil {
			return nil, err
		}
		var fence int64
		if s.mutation == mFenceClock {
			fence = s.now().UnixMilli()
		} else if fence, err = node.Incr(cctx, key+":fence").Result(); err != nil {
			_ = mCompareAndDelete.Run(context.WithoutCancel(ctx), node, []string{key}, token).Err()
			return nil, s.unknown("acquire (INCR fence)", key, err)
		}
		l.Fence = fence
		l.Renew(start, lock.Validity(s.o.TTL, s.now().Sub(start), s.o.Drift))
	}
	if s.o.Watchdog {
		lock.StartWatchdog(s.o, l, func(ctx context.Context) error { return s.Extend(ctx, l) })
	}
	return l, nil
}

func (s *mutantSetPX) Release(ctx context.Context, l *lock.Lease) error {
	l.StopWatchdog()
	if err := s.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	node := s.nodes[0]
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	var n int64
	var err error
	switch s.mutation {
	case mDelUnlock:
		n, err = node.Del(cctx, l.Key).Result()
	case mGetThenDel:
		var v string
		v, err = node.Get(cctx, l.Key).Result()
		if errors.Is(err, redis.Nil) {
			err = nil
		} else if err == nil && v == l.Token {
			n, err = node.Del(cctx, l.Key).Result()
		}
	default:
		n, err = mCompareAndDelete.Run(cctx, node, []string{l.Key}, l.Token).Int64()
	}
	if err != nil {
		return s.unknown("release", l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: release %q: %w", s.name, l.Key, lock.ErrNotHeld)
	}
	return nil
}

func (s *mutantSetPX) Extend(ctx context.Context, l *lock.Lease) error {
	node := s.nodes[0]
	start := s.now()
	cctx, cancel := s.cmdCtx(ctx)
	defer cancel()
	var n int64
	var err error
	switch s.mutation {
	case mRenewAny:
		var ok bool
		ok, err = node.PExpire(cctx, l.Key, s.o.TTL).Result()
		if ok {
			n = 1
		}
	case mPexpireSeconds:
		n, err = mCompareAndPexpire.Run(cctx, node, []string{l.Key}, l.Token, int64(s.o.TTL/time.Second)).Int64()
	default:
		n, err = mCompareAndPexpire.Run(cctx, node, []string{l.Key}, l.Token, s.o.TTL.Milliseconds()).Int64()
	}
	if err != nil {
		return s.unknown("extend", l.Key, err)
	}
	if n == 0 && s.mutation != mExtendRefusal {
		return fmt.Errorf("%s: extend %q: %w", s.name, l.Key, lock.ErrNotHeld)
	}
	l.Renew(start, lock.Validity(s.o.TTL, s.now().Sub(start), s.o.Drift))
	return nil
}

// Mutations of the reentrant lock (lock/reentrant.go).
const (
	mUnlockAtOne = "unlock-at-one" // release: DEL when the count reaches 1, not 0
)

// mutantReentrant is reentrant with one mutation of its release script.
type mutantReentrant struct {
	mutantCommon
	release *redis.Script
}

var (
	mReentrantAcquire = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 or redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  redis.call("HINCRBY", KEYS[1], ARGV[1], 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return nil
end
return redis.call("PTTL", KEYS[1])`)
	mReentrantRelease = map[string]*redis.Script{
		"": redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then return -1 end
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then return nil end
if redis.call("HINCRBY", KEYS[1], ARGV[1], -1) > 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 0
end
redis.call("DEL", KEYS[1])
return 1`),
		mUnlockAtOne: redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then return -1 end
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then return nil end
if redis.call("HINCRBY", KEYS[1], ARGV[1], -1) > 1 then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 0
end
redis.call("DEL", KEYS[1])
return 1`),
	}
	mReentrantExtend = redis.NewScript(`
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)

func (r *mutantReentrant) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	err := mReentrantAcquire.Run(cctx, r.nodes[0], []string{key}, r.o.Owner, r.o.TTL.Milliseconds()).Err()
	switch {
	case errors.Is(err, redis.Nil): // acquired
	case err != nil:
		return nil, r.unknown("acquire", key, err)
	default:
		return nil, lock.ErrNotAcquired
	}
	l := lock.NewLease(key, r.o.Owner, lock.Exclusive, start, lock.Validity(r.o.TTL, r.now().Sub(start), r.o.Drift))
	if r.o.Watchdog {
		lock.StartWatchdog(r.o, l, func(ctx context.Context) error { return r.Extend(ctx, l) })
	}
	return l, nil
}

func (r *mutantReentrant) Release(ctx context.Context, l *lock.Lease) error {
	l.StopWatchdog()
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := r.release.Run(cctx, r.nodes[0], []string{l.Key}, r.o.Owner, r.o.TTL.Milliseconds()).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("%s: release %q: %w", r.name, l.Key, lock.ErrNotHeld)
	case err != nil:
		return r.unknown("release", l.Key, err)
	case n < 0:
		return fmt.Errorf("%s: release %q: %w", r.name, l.Key, lock.ErrNotHeld)
	}
	return nil
}

func (r *mutantReentrant) Extend(ctx context.Context, l *lock.Lease) error {
	start := r.now()
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	n, err := mReentrantExtend.Run(cctx, r.nodes[0], []string{l.Key}, r.o.Owner, r.o.TTL.Milliseconds()).Int64()
	if err != nil {
		return r.unknown("extend", l.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: extend %q: %w", r.name, l.Key, lock.ErrNotHeld)
	}
	l.Renew(start, lock.Validity(r.o.TTL, r.now().Sub(start), r.o.Drift))
	return nil
}

// Mutations of Redlock (lock/redlock.go).
const (
	mMinority     = "minority"       // quorum N/2 instead of N/2+1
	mRedlockReply = "validity-reply" // validity measured from the last reply, not the first send
)

// mutantRedlock is redlock with one mutation.
type mutantRedlock struct {
	mutantCommon
	mutation string
}

func (r *mutantRedlock) quorum() int {
	if r.mutation == mMinority {
		return len(r.nodes) / 2
	}
	return lock.Quorum(len(r.nodes))
}

// onAll runs op on every node in parallel, each bounded by NodeTimeout,
// and counts the nodes that did it and those that gave no answer.
func (r *mutantRedlock) onAll(ctx context.Context, op func(context.Context, redis.UniversalClient) (bool, error)) (did, failed int) {
	cctx, cancel := r.cmdCtx(ctx)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, node := range r.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := op(cctx, node)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed++
			case ok:
				did++
			}
		}()
	}
	wg.Wait()
	return did, failed
}

func (r *mutantRedlock) unlockAll(ctx context.Context, key, token string) (int, int) {
	return r.onAll(ctx, func(ctx context.Context, c redis.UniversalClient) (bool, error) {
		n, err := mCompareAndDelete.Run(ctx, c, []string{key}, token).Int64()
		return n == 1, err
	})
}

func (r *mutantRedlock) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	token := r.o.Tokens()
	start := r.now()
	did, _ := r.onAll(ctx, func(ctx context.Context, c redis.UniversalClient) (bool, error) {
		return c.SetNX(ctx, key, token, r.o.TTL).Result()
	})
	if r.mutation == mRedlockReply {
		start = r.now()
	}
	validity := lock.RedlockValidity(r.o.TTL, r.now().Sub(start), r.o.Drift)
	if did >= r.quorum() && validity > 0 {
		l := lock.NewLease(key, token, lock.Exclusive, start, validity)
		if r.o.Watchdog {
			lock.StartWatchdog(r.o, l, func(ctx context.Context) error { return r.Extend(ctx, l) })
		}
		return l, nil
	}
	r.unlockAll(context.WithoutCancel(ctx), key, token)
	return nil, fmt.Errorf("%s: acquire %q: %w: set on %d of %d nodes", r.name, key, lock.ErrNotAcquired, did, len(r.nodes))
}

func (r *mutantRedlock) Release(ctx context.Context, l *lock.Lease) error {
	l.StopWatchdog()
	if err := r.at(ctx, vocab.PointBeforeReleaseCommand, l.Key, l); err != nil {
		return err
	}
	did, failed := r.unlockAll(ctx, l.Key, l.Token)
	switch {
	case did >= r.quorum():
		return nil
	case did+failed < r.quorum():
		return fmt.Errorf("%s: release %q: %w", r.name, l.Key, lock.ErrNotHeld)
	}
	return r.unknown("release", l.Key, fmt.Errorf("deleted on %d of %d nodes", did, len(r.nodes)))
}

func (r *mutantRedlock) Extend(ctx context.Context, l *lock.Lease) error {
	start := r.now()
	did, failed := r.onAll(ctx, func(ctx context.Context, c redis.UniversalClient) (bool, error) {
		n, err := mCompareAndPexpire.Run(ctx, c, []string{l.Key}, l.Token, r.o.TTL.Milliseconds()).Int64()
		return n == 1, err
	})
	validity := lock.RedlockValidity(r.o.TTL, r.now().Sub(start), r.o.Drift)
	switch {
	case did >= r.quorum() && validity > 0:
		l.Renew(start, validity)
		return nil
	case did+failed < r.quorum():
		return fmt.Errorf("%s: extend %q: %w", r.name, l.Key, lock.ErrNotHeld)
	}
	return r.unknown("extend", l.Key, fmt.Errorf("extended on %d of %d nodes", did, len(r.nodes)))
}

// mutant is one entry of the suite: the registered name, the design it
// was copied from (its Like) and the line it changes.
type mutant struct {
	name, like, change string
}

// mutants are the suite, in the order of the table in docs/results.md.
var mutants = []mutant{
	{"mutant-setpx-del-unlock", "setpx", "release: DEL without the owner check"},
	{"mutant-setpx-get-then-del", "setpx", "release: GET and compare in the client, then DEL (not atomic)"},
	{"mutant-setpx-set-without-nx", "setpx", "acquire: SET PX without NX"},
	{"mutant-setpx-ex-ms-as-seconds", "setpx", "acquire: the TTL's milliseconds passed as seconds (EX 500)"},
	{"mutant-setpx-validity-reply", "setpx", "acquire: validity measured from the reply instead of the send"},
	{"mutant-setpx-renew-any", "setpx", "watchdog renewal: PEXPIRE without the owner check"},
	{"mutant-setpx-pexpire-seconds", "setpx", "watchdog renewal: the TTL's seconds passed as milliseconds (PEXPIRE 0)"},
	{"mutant-setpx-extend-ignores-no", "setpx", "watchdog renewal: a refused renewal counts as renewed"},
	{"mutant-fenced-fence-clock", "fenced", "fencing token: the client's clock in ms instead of INCR"},
	{"mutant-reentrant-unlock-at-one", "reentrant", "release: DEL when the count reaches 1 instead of 0"},
	{"mutant-redlock-minority", "redlock", "quorum: N/2 instead of N/2+1"},
	{"mutant-redlock-validity-reply", "redlock", "validity measured from the last reply instead of the first send"},
}

// controlSetPX is a correct lock under another name: setpx's own factory,
// registered with Like: setpx.
const controlSetPX = "control-setpx-copy"

var registerMutants = sync.OnceValue(func() error {
	for _, m := range mutants {
		real, err := lock.Lookup(m.like)
		if err != nil {
			return err
		}
		mutation := m.name[len("mutant-"+m.like+"-"):]
		info := lock.Info{
			Name: m.name, Summary: m.change, Like: m.like,
			MultiNode: real.MultiNode, Expires: true, Reentrant: real.Reentrant, Fencing: real.Fencing,
			Watchdog: true, Extendable: true,
		}
		info.New = func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
			common := mutantCommon{name: m.name, nodes: nodes, o: o}
			switch m.like {
			case "reentrant":
				return &mutantReentrant{mutantCommon: common, release: mReentrantRelease[mutation]}, nil
			case "redlock":
				return &mutantRedlock{mutantCommon: common, mutation: mutation}, nil
			}
			return &mutantSetPX{mutantCommon: common, mutation: mutation, fence: m.like == "fenced"}, nil
		}
		if err := lock.Register(info); err != nil {
			return err
		}
	}
	setpx, err := lock.Lookup("setpx")
	if err != nil {
		return err
	}
	setpx.Name, setpx.Like = controlSetPX, "setpx"
	return lock.Register(setpx)
})
