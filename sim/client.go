package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/vocab"
)

// Client is one simulated process holding a Locker: its own clock, its own
// connections and a gate that faults can pause or crash.
type Client struct {
	ID    int
	Gate  *Gate
	Clock *ClientClock

	w      *World
	sched  *schedule
	locker lock.Locker
	conns  []redis.UniversalClient
	rnd    *rand.Rand
	wait   *sleeper // the client's own waits in true time (think, hold)

	mu         sync.Mutex
	renewCalls map[string]time.Duration // lease token -> Call of its renewal in flight
	inside     *lock.Lease              // the lease whose critical section is open at the resource
	exiting    bool                     // an exit (or the last write) of inside is on the wire
	held       map[*lock.Lease]bool     // leases acquired and not yet released
	// waitFrom is when the wait for the unlock message in progress began
	// (0: none); the next attempt records it (Op.WaitFrom).
	waitFrom time.Duration
}

func newClient(id int, w *World, sched *schedule) (*Client, error) {
	cfg := w.cfg
	c := &Client{
		ID:         id,
		Gate:       newGate(),
		Clock:      NewClientClock(w.rec.Origin(), time.Now()),
		w:          w,
		sched:      sched,
		conns:      w.cluster.ClientConns(id), // through its proxies when faults need them
		rnd:        rand.New(rand.NewPCG(cfg.Seed, uint64(id)+1)),
		renewCalls: map[string]time.Duration{},
		held:       map[*lock.Lease]bool{},
	}
	c.Clock.wait = newSleeper(w.sched, fmt.Sprintf("clock/%d", id))
	c.Gate.sched, c.Gate.name = w.sched, fmt.Sprintf("gate/%d", id)
	c.wait = newSleeper(w.sched, fmt.Sprintf("client/%d", id))
	c.Clock.changed = func(at, reading time.Duration, rate float64) {
		w.rec.Add(Op{Kind: KindClock, Client: id, Call: at, Return: at, Outcome: OK, Reading: reading, Rate: rate})
	}
	o := cfg.Options
	o.Clock, o.Hook, o.Renewed = c.Clock, c.hook, c.renewed
	o.Owner = fmt.Sprintf("client-%d", id)
	o.Seed = cfg.Seed*1000 + uint64(id)
	n := 0
	o.Tokens = func() string { n++; return fmt.Sprintf("c%d-%d", id, n) }
	l, err := lock.New(cfg.Algorithm, c.conns, o)
	if err != nil {
		c.close()
		return nil, err
	}
	c.locker = l
	return c, nil
}

func (c *Client) close() {
	if c.locker != nil {
		_ = lock.Close(c.locker) // the notified waiter's subscriber connection
	}
	for _, r := range c.conns {
		_ = r.Close()
	}
}

// point reports the point to the fault schedule, then passes the gate: a
// fault triggered here is in force before the next step.
func (c *Client) point(ctx context.Context, p history.Point) error {
	c.sched.reached(c.ID, p)
	return c.Gate.Pass(ctx)
}

// hook is the designs' window into the simulator: internal points and the
// watchdog's renewals, which are recorded as extend operations.
func (c *Client) hook(ctx context.Context, ev lock.Event) error {
	switch ev.Point {
	case vocab.PointWatchdogRenew:
		c.mu.Lock()
		c.renewCalls[ev.Lease.Token] = c.w.rec.Now()
		c.mu.Unlock()
	case vocab.PointWatchdogRenewed, vocab.PointWatchdogLost:
		c.mu.Lock()
		call := c.renewCalls[ev.Lease.Token]
		c.mu.Unlock()
		op := Op{Kind: KindExtend, Client: c.ID, Key: ev.Key, Mode: ev.Lease.Mode.String(), Token: ev.Lease.Token,
			Call: call, Return: c.w.rec.Now(), Outcome: OK}
		if ev.Point == vocab.PointWatchdogLost {
			op.Outcome = Fail
		} else {
			op.Deadline = c.deadline(ev.Lease)
			op.TTL = c.ttl(ev.Lease)
		}
		c.w.rec.Add(op)
	}
	if err := c.point(ctx, ev.Point); err != nil {
		return err
	}
	if ev.Point == vocab.PointWaitForUnlock {
		// past the gate: the wait begins (a pause there is its fault's)
		c.mu.Lock()
		c.waitFrom = c.w.rec.Now()
		c.mu.Unlock()
	}
	return nil
}

// renewed records a renewal the design's library made on its own timers
// (lock.Renewal) as an extend, as the watchdog's renewals are: the lease's
// deadline, a reading of the client's clock, follows it when it extended
// the lock. It passes no gate and reaches no point: the renewal is over
// when the client hears of it. Its call is when it was sent, as far as the
// report says (else when it was heard of); its return, when it was heard
// of.
func (c *Client) renewed(r lock.Renewal) {
	now := c.w.rec.Now()
	call := now
	if !r.Sent.IsZero() {
		if ago := c.Clock.Now().Sub(r.Sent); ago > 0 {
			call = max(now-c.Clock.TrueDuration(ago), 0)
		}
	}
	op := Op{Kind: KindExtend, Client: c.ID, Key: r.Lease.Key, Mode: r.Lease.Mode.String(), Token: r.Lease.Token,
		Call: call, Return: now, Outcome: OK}
	switch {
	case r.Err == nil:
		op.Deadline = c.Clock.Reading(r.Deadline)
		op.TTL = r.TTL
		if op.TTL <= 0 {
			op.TTL = c.ttl(r.Lease)
		}
	case errors.Is(r.Err, lock.ErrNotHeld):
		op.Outcome, op.Err = Fail, r.Err.Error()
	default:
		op.Outcome, op.Err = Unknown, r.Err.Error()
	}
	c.w.rec.Add(op)
}

// takeWait ends the wait for the unlock message in progress, if any, and
// says when it began (0: none).
func (c *Client) takeWait() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.waitFrom
	c.waitFrom = 0
	return from
}

// run cycles until stop ends, the client crashes or ctx ends.
func (c *Client) run(ctx, stop context.Context) {
	for {
		select {
		case <-stop.Done():
			return
		default:
		}
		if err := c.cycle(ctx, stop); err != nil {
			return
		}
		if c.sleep(ctx, c.w.cfg.Think) != nil {
			return
		}
	}
}

// cycle is acquire -> check -> enter -> hold -> exit -> release. It returns
// an error only when the client must stop (crashed, or ctx ended); a lock
// that could not be had just ends the cycle.
func (c *Client) cycle(ctx, stop context.Context) error {
	cfg := c.w.cfg
	key := cfg.LockKey(c.rnd.IntN(cfg.Keys))
	read := cfg.ReadRatio > 0 && c.rnd.Float64() < cfg.ReadRatio
	if c.ID < len(cfg.Roles) && cfg.Roles[c.ID] != AccessAny {
		read = cfg.Roles[c.ID] == AccessRead
	}
	if err := c.point(ctx, vocab.PointBeforeAcquire); err != nil {
		return err
	}
	// Waiting for the lock ends when the run's duration is over.
	actx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(stop, cancel)
	// The end of the run stops the waiting between attempts, never an
	// attempt in progress: cutting setnx-expire between its SETNX and its
	// EXPIRE would leave a key without TTL that no fault put there.
	attempt := c.recordedAcquire(read)
	inFull := func(_ context.Context, key string) (*lock.Lease, error) {
		if c.Gate.Crashed() {
			return nil, ErrCrashed // a crashed process makes no further attempt
		}
		return attempt(ctx, key)
	}
	wait := Op{Kind: KindWait, Client: c.ID, Key: key, Mode: lock.Exclusive.String(), Call: c.w.rec.Now(), Patience: c.w.cfg.Patience()}
	if read {
		wait.Mode = lock.Shared.String()
	}
	l, err := lock.WaitFor(actx, c.locker, inFull, key, cfg.Options.Retry, c.Clock, c.rnd)
	cut := actx.Err() != nil
	unhook()
	cancel()
	wait.WaitFrom = c.takeWait() // a wait for the message that the run's end or a crash cut short
	c.recordWait(wait, l, err, cut)
	if err != nil {
		return c.stopErr(ctx)
	}
	if err := c.point(ctx, vocab.PointAfterAcquire); err != nil {
		return err
	}
	inner, err := c.nest(ctx, attempt, l)
	if err != nil {
		return err
	}
	valid := true
	if cfg.Options.ValidityCheck {
		// the newest hold carries the latest validity (a nested acquire
		// of a reentrant lock renews the whole hold)
		newest := l
		if len(inner) > 0 {
			newest = inner[len(inner)-1]
		}
		valid = c.check(ctx, newest)
	}
	if err := c.point(ctx, vocab.PointAfterCheck); err != nil {
		return err
	}
	if valid {
		if err := c.work(ctx, l, inner); err != nil {
			return err
		}
	} else if err := c.unwind(ctx, inner); err != nil {
		return err
	}
	if err := c.point(ctx, vocab.PointBeforeRelease); err != nil {
		return err
	}
	c.release(ctx, l)
	return c.stopErr(ctx)
}

// recordWait records the client's whole wait for the lock, begun at
// wait.Call: granted, given up, or cut by the run's end or a crash.
func (c *Client) recordWait(wait Op, l *lock.Lease, err error, cut bool) {
	wait.Return = c.w.rec.Now()
	switch {
	case err == nil:
		wait.Outcome, wait.Token = OK, l.Token
	case c.Gate.Crashed():
		wait.Outcome, wait.Err = Unknown, "the client crashed while waiting"
	case cut:
		wait.Outcome, wait.Err = Unknown, "cut by the run's end"
	case errors.Is(err, lock.ErrNotAcquired):
		wait.Outcome, wait.Err = Fail, err.Error()
	default:
		wait.Outcome, wait.Err = Unknown, err.Error()
	}
	c.w.rec.Add(wait)
}

// nest takes Nest-1 more levels of a reentrant lock the client holds as
// outer, one attempt each. A refused level ends the nesting (the history
// shows the failed acquire); the cycle goes on with the levels it has.
func (c *Client) nest(ctx context.Context, attempt lock.Acquirer, outer *lock.Lease) ([]*lock.Lease, error) {
	var inner []*lock.Lease
	for range c.w.cfg.Nest - 1 {
		if err := c.point(ctx, vocab.PointBeforeNestedAcquire); err != nil {
			return inner, err
		}
		l, err := attempt(ctx, outer.Key)
		if err != nil {
			break
		}
		inner = append(inner, l)
	}
	return inner, nil
}

// unwind releases the inner holds, innermost first, then reaches
// after-unwind; it does nothing without nesting.
func (c *Client) unwind(ctx context.Context, inner []*lock.Lease) error {
	if c.w.cfg.Nest < 2 {
		return nil
	}
	for i := len(inner) - 1; i >= 0; i-- {
		if err := c.point(ctx, vocab.PointBeforeUnwind); err != nil {
			return err
		}
		c.release(ctx, inner[i])
	}
	return c.point(ctx, vocab.PointAfterUnwind)
}

// stopErr turns a crashed gate or an ended run into the loop's stop signal.
func (c *Client) stopErr(ctx context.Context) error {
	if c.Gate.Crashed() {
		return ErrCrashed
	}
	return ctx.Err()
}

// recordedAcquire is one recorded attempt at the lock.
func (c *Client) recordedAcquire(read bool) lock.Acquirer {
	return func(ctx context.Context, key string) (*lock.Lease, error) {
		op := Op{Kind: KindAcquire, Client: c.ID, Key: key, Mode: lock.Exclusive.String(), Call: c.w.rec.Now()}
		op.WaitFrom = c.takeWait()
		var l *lock.Lease
		var err error
		if rl, ok := c.locker.(lock.ReadLocker); ok && read {
			op.Mode = lock.Shared.String()
			l, err = rl.AcquireRead(ctx, key)
		} else {
			l, err = c.locker.Acquire(ctx, key)
		}
		op.Return = c.w.rec.Now()
		switch {
		case err == nil:
			op.Outcome, op.Token, op.Fence = OK, l.Token, l.Fence
			op.Deadline, op.TTL = c.deadline(l), c.ttl(l)
			op.Granted, op.Asked = c.granted(l)
			c.mu.Lock()
			c.held[l] = true
			c.mu.Unlock()
		case errors.Is(err, lock.ErrNotAcquired):
			op.Outcome, op.Err, op.Reason = Fail, err.Error(), history.ReasonRefused
			if round, ok := errors.AsType[*lock.RoundError](err); ok {
				op.Granted, op.Asked = round.Granted, round.Asked
				switch {
				case round.Refused == round.Asked:
					// every node had the key: held, a plain refusal
				case len(round.Granted) < round.Need:
					op.Reason = history.ReasonNoMajority
				default:
					op.Reason = history.ReasonValiditySpent
				}
			}
		default:
			op.Outcome, op.Err, op.Reason = Unknown, err.Error(), failureReason(err)
		}
		c.w.rec.Add(op)
		return l, err
	}
}

// failureReason classifies an acquire of unknown outcome.
func failureReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return history.ReasonTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return history.ReasonTimeout
	}
	return history.ReasonError
}

// granted is where an ok acquire set the key: what a multi-node design
// reported, or node 0 for a single-node design (its only node).
func (c *Client) granted(l *lock.Lease) ([]int, int) {
	if l.Asked > 0 {
		return l.Granted, l.Asked
	}
	if info, err := lock.Lookup(c.w.cfg.Algorithm); err == nil && !info.MultiNode {
		return []int{0}, 1
	}
	return nil, 0
}

// ttl is the expiry the nodes set for l; 0 when the lock does not expire.
func (c *Client) ttl(l *lock.Lease) time.Duration {
	if !l.Expires() {
		return 0
	}
	return c.w.cfg.Options.TTL
}

// deadline is the end of l's validity as a reading of the client's clock;
// 0 when the lock does not expire.
func (c *Client) deadline(l *lock.Lease) time.Duration {
	if !l.Expires() {
		return 0
	}
	return c.Clock.Reading(l.Deadline())
}

// abandon stops the watchdogs of the leases the client still holds: its
// cycle was cut off at the end of the run (or it crashed), and a renewal
// that goes on would keep the lock from the liveness probe although the
// lock did nothing wrong.
func (c *Client) abandon() {
	c.mu.Lock()
	held := make([]*lock.Lease, 0, len(c.held))
	for l := range c.held {
		held = append(held, l)
	}
	clear(c.held)
	c.mu.Unlock()
	for _, l := range held {
		l.StopWatchdog()
	}
}

// check is the validity check antirez asks for: is the lease still valid by
// this client's clock? A design whose library has a check of its own
// (lock.Checker) answers instead, as the application would ask it.
func (c *Client) check(ctx context.Context, l *lock.Lease) bool {
	op := Op{Kind: KindCheck, Client: c.ID, Key: l.Key, Mode: l.Mode.String(), Token: l.Token, Call: c.w.rec.Now(), Outcome: OK}
	valid, own, err := false, false, error(nil)
	if lc, ok := c.locker.(lock.Checker); ok {
		valid, own, err = lc.StillValid(ctx, l)
	}
	switch {
	case !own:
		valid = l.Remaining(c.Clock.Now()) > 0
		if !valid {
			op.Outcome, op.Err = Fail, "lease already expired by the client's clock"
		}
	case err != nil:
		// the library's check did not answer: the client does not act
		valid = false
		op.Outcome, op.Err = Fail, "the library's check failed: "+err.Error()
	case !valid:
		op.Outcome, op.Err = Fail, "the library's check says the lock is no longer valid"
	}
	op.Return = c.w.rec.Now()
	c.w.rec.Add(op)
	return valid
}

// work is the critical section: enter, hold, exit at the resource. With
// nesting, the inner holds are released halfway through the hold, so the
// client is still inside, on its outer hold alone, while the lock unwinds.
func (c *Client) work(ctx context.Context, l *lock.Lease, inner []*lock.Lease) error {
	fenced := c.w.cfg.Fencing()
	c.resourceOp(ctx, l, KindEnter, fenced)
	if err := c.point(ctx, vocab.PointAfterEnter); err != nil {
		return err
	}
	hold := c.w.cfg.Hold
	if c.w.cfg.Nest > 1 {
		if c.sleep(ctx, hold/2) != nil {
			return ctx.Err()
		}
		if err := c.unwind(ctx, inner); err != nil {
			return err
		}
		hold -= hold / 2
	}
	if c.sleep(ctx, hold) != nil {
		return ctx.Err()
	}
	if err := c.point(ctx, vocab.PointBeforeExit); err != nil {
		return err
	}
	c.resourceOp(ctx, l, KindExit, fenced)
	return nil
}

// resourceOp sends one operation to the resource. With fencing, entering and
// leaving are both writes carrying the lease's fencing token.
//
// The resource sits behind the network: the client's link to it may delay
// the request (and the reply), or hold it while cut (package network). Call is when
// the client sent it, At when it landed. A message on the wire lands
// whatever happens to its sender: a crash stops the sender, not the
// network.
func (c *Client) resourceOp(ctx context.Context, l *lock.Lease, kind Kind, fenced bool) {
	if c.Gate.Crashed() {
		return // a dead process sends nothing
	}
	link := network.Link{From: network.ClientEnd(c.ID), To: network.ResourceEnd}
	call := c.w.rec.Now()
	c.mu.Lock()
	c.exiting = kind == KindExit
	c.mu.Unlock()
	c.w.Network().Transit(ctx, link, c.rnd)
	c.mu.Lock()
	op := c.landLocked(l, kind, fenced, call)
	c.mu.Unlock()
	c.w.Network().Transit(ctx, link, c.rnd) // the reply
	op.Return = c.w.rec.Now()
	op.Unacked = c.Gate.Crashed() // nobody was there to read the reply
	c.w.rec.Add(op)
}

// landLocked applies an operation that reached the resource. An enter of a
// client that crashed while it was on the wire opens a section that the
// dead client cannot go on with, so the section ends where it began; an
// exit that was on the wire ends its section where it lands (Crash left
// the section open for it).
func (c *Client) landLocked(l *lock.Lease, kind Kind, fenced bool, call time.Duration) Op {
	k := kind
	if fenced {
		k = KindWrite
	}
	op := Op{Kind: k, Client: c.ID, Key: l.Key, Mode: l.Mode.String(), Token: l.Token, Fence: l.Fence, Call: call}
	c.w.res.Apply(&op)
	c.exiting = false
	switch {
	case kind == KindEnter && c.Gate.Crashed() && !fenced:
		c.applyLocked(l, KindExit, false, "client crashed while its enter was in flight")
	case kind == KindEnter:
		c.inside = l
	default:
		c.inside = nil
	}
	return op
}

func (c *Client) applyLocked(l *lock.Lease, kind Kind, fenced bool, note string) {
	if fenced {
		kind = KindWrite
	}
	op := Op{Kind: kind, Client: c.ID, Key: l.Key, Mode: l.Mode.String(), Token: l.Token, Fence: l.Fence, Call: c.w.rec.Now(), Err: note}
	c.w.res.Apply(&op)
	op.Return = c.w.rec.Now()
	c.w.rec.Add(op)
}

// Crash kills the client for good. A process that dies inside its critical
// section does nothing more there, so the resource sees its section end at
// the crash (recorded as an exit, or with fencing as nothing: a fenced
// section is its accepted writes), unless its exit is already on the wire:
// then the section ends where that exit lands.
func (c *Client) Crash() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Gate.Crash()
	if p, ok := c.locker.(lock.ProcessControl); ok {
		c.w.cluster.Network().Ending(network.ClientEnd(c.ID)) // its connections die with it
		_ = p.Kill()
	}
	if c.inside != nil && !c.exiting && !c.w.cfg.Fencing() {
		c.applyLocked(c.inside, KindExit, false, "client crashed inside its critical section")
		c.inside = nil
	}
}

func (c *Client) release(ctx context.Context, l *lock.Lease) {
	c.mu.Lock()
	delete(c.held, l)
	c.mu.Unlock()
	op := Op{Kind: KindRelease, Client: c.ID, Key: l.Key, Mode: l.Mode.String(), Token: l.Token, Call: c.w.rec.Now()}
	err := c.locker.Release(ctx, l)
	op.Return = c.w.rec.Now()
	switch {
	case err == nil:
		op.Outcome = OK
	case errors.Is(err, lock.ErrNotHeld):
		op.Outcome, op.Err = Fail, err.Error()
	default:
		op.Outcome, op.Err = Unknown, err.Error()
	}
	c.w.rec.Add(op)
}

// sleep waits d of true time or until ctx ends.
func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	return c.wait.sleep(ctx, d)
}
