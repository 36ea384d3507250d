package adapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// locker is one client's process design: a lock.Locker whose every call is
// a request to its child.
type locker struct {
	name  string
	c     *child
	clock *childClock // nil when the child's clock is its own
	o     lock.Options
	// checks: the child answers "check" with its library's own validity
	// check (its hello said so)
	checks bool

	mu   sync.Mutex
	held map[string]held // token -> a lease acquired and not yet released
	// early are the last event lines for tokens not held: the reader may
	// take an event before Acquire has taken the reply that made its
	// token, which then applies them; those of released leases are dropped
	// as newer ones come.
	early []reply
}

// maxEarly bounds the event lines kept for tokens not held.
const maxEarly = 16

// held is a lease the child granted, with the client-clock instant its
// acquire was sent: the origin locksim counts the child's validities from.
type held struct {
	le    *lock.Lease
	start time.Time
}

var (
	_ lock.Locker         = (*locker)(nil)
	_ lock.Extender       = (*locker)(nil)
	_ lock.ProcessControl = (*locker)(nil)
	_ lock.Checker        = (*locker)(nil)
)

// newLocker starts the child of cmd for one client and says hello: the
// addresses the client reaches the nodes at (its proxies when the run has
// them) and the run's options.
func newLocker(name string, cmd Command, nodes []redis.UniversalClient, o lock.Options) (*locker, error) {
	addrs, cluster, err := helloAddrs(name, nodes)
	if err != nil {
		return nil, err
	}
	if cluster != nil && !cmd.Cluster {
		return nil, fmt.Errorf("%s: its adapter takes one address per node, not a Redis Cluster", name)
	}
	var clock *childClock
	var exited func(int)
	if wc, ok := o.Clock.(lock.WatchedClock); ok && cmd.Faketime != NoFaketime && faketimeMissing() == "" {
		var err error
		if clock, err = newChildClock(wc); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, lock.ErrNoStart, err)
		}
		exited = removeFaketimeShm
	}
	env := append(childEnv(os.Environ(), clock, cmd.Faketime), "PYTHONUNBUFFERED=1")
	l := &locker{name: name, clock: clock, o: o, held: map[string]held{}}
	c, err := startChild(cmd.Argv, env, cmd.Dir, exited, l.event)
	if err != nil {
		clock.close()
		return nil, fmt.Errorf("%s: %w: %w", name, lock.ErrNoStart, err)
	}
	l.c = c
	hello := request{Op: "hello", Owner: o.Owner, Nodes: addrs, Cluster: cluster, Options: &helloOptions{
		TTLms: o.TTL.Milliseconds(), Drift: o.Drift, RetryDelayMs: o.Retry.Interval.Milliseconds(),
		NodeTimeoutMs: o.NodeTimeout.Milliseconds(),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), helloTimeout)
	defer cancel()
	r, err := c.call(ctx, hello)
	if err == nil && r.Result == resultRefused {
		// a definite no: the library cannot run on these servers, which
		// is the run's setting, not locksim failing
		_ = l.Close()
		return nil, fmt.Errorf("%s: %s", name, r.Error)
	}
	if err == nil && r.Result != resultOK {
		err = fmt.Errorf("hello refused: %s", r.Error)
	}
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("%s: %w: %w", name, lock.ErrNoStart, err)
	}
	l.checks = r.Checks
	return l, nil
}

// helloTimeout bounds a child's start (an interpreter loading its
// libraries on a loaded machine).
const helloTimeout = time.Minute

func (l *locker) Name() string { return l.name }

func (l *locker) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	// no point here: the client loop passes before-acquire itself (once
	// per cycle), and a second one would count twice for nth triggers
	wait := int64(0)
	start := l.o.Clock.Now()
	r, err := l.call(ctx, request{Op: "acquire", Key: key, TTLms: l.o.TTL.Milliseconds(), WaitMs: &wait})
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %s: %w", l.name, key, err)
	}
	switch r.Result {
	case resultOK:
		if r.Token == "" {
			return nil, fmt.Errorf("%s: acquire %s: ok without a token", l.name, key)
		}
		le := lock.NewLease(key, r.Token, lock.Exclusive, start, l.validity(r, start))
		l.mu.Lock()
		h := held{le: le, start: start}
		l.held[r.Token] = h
		l.early = slices.DeleteFunc(l.early, func(e reply) bool {
			if e.Token != r.Token {
				return false
			}
			l.extended(h, e)
			return true
		})
		l.mu.Unlock()
		if l.o.Watchdog {
			// only designs whose Info says Watchdog get the option: locksim
			// renews through the child's extend, as an application would
			lock.StartWatchdog(l.o, le, func(ctx context.Context) error { return l.Extend(ctx, le) })
		}
		return le, nil
	case resultRefused:
		return nil, fmt.Errorf("%s: %w: %s", l.name, lock.ErrNotAcquired, r.Error)
	default:
		return nil, fmt.Errorf("%s: acquire %s: %s", l.name, key, r.Error)
	}
}

// validity is the lease's validity from start (client clock, when the
// request was sent): the child's own figure, counted from a moment no
// earlier than start, so the deadline is never later than the child's;
// else the single-node arithmetic.
func (l *locker) validity(r reply, start time.Time) time.Duration {
	if r.ValidityMs != nil {
		v := time.Duration(*r.ValidityMs * float64(time.Millisecond))
		if v <= 0 {
			return time.Nanosecond // spent on arrival; 0 would mean "never expires"
		}
		return v
	}
	v := lock.Validity(l.o.TTL, l.o.Clock.Now().Sub(start), l.o.Drift)
	return max(v, time.Nanosecond)
}

func (l *locker) Release(ctx context.Context, le *lock.Lease) error {
	le.StopWatchdog()
	// the holder stops relying on the lease as it calls release: an
	// extension the child reports from now on extends nothing of it
	l.mu.Lock()
	delete(l.held, le.Token)
	l.mu.Unlock()
	if err := l.o.Hook(ctx, lock.Event{Point: vocab.PointBeforeReleaseCommand, Key: le.Key, Lease: le}); err != nil {
		return err
	}
	r, err := l.call(ctx, request{Op: "release", Key: le.Key, Token: le.Token})
	return l.answer("release", le.Key, r, err)
}

func (l *locker) Extend(ctx context.Context, le *lock.Lease) error {
	start := l.o.Clock.Now()
	r, err := l.call(ctx, request{Op: "extend", Key: le.Key, Token: le.Token, TTLms: l.o.TTL.Milliseconds()})
	if err := l.answer("extend", le.Key, r, err); err != nil {
		return err
	}
	le.Renew(start, l.validity(r, start))
	return nil
}

// event takes the child's event lines (protocol.go): an extension its
// library made on its own (eventExtended) renews the lease it names, from
// the acquire's start, and goes to Options.Renewed. One for a token the
// client does not hold waits for its acquire (early); a released lease's
// is never applied.
func (l *locker) event(e reply) error {
	switch {
	case e.Event != eventExtended:
		return fmt.Errorf("unknown event (the protocol's events: %s)", eventExtended)
	case e.Token == "":
		return errors.New("extended without the token it extended")
	case e.Result == resultOK && e.ValidityMs == nil:
		return errors.New("extended ok without validity_ms, the new end of the lease")
	case e.Result != resultOK && e.Result != resultRefused && e.Result != resultError:
		return fmt.Errorf("extended with result %q (ok, refused or error)", e.Result)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[e.Token]
	if !ok {
		if len(l.early) == maxEarly {
			l.early = slices.Delete(l.early, 0, 1)
		}
		l.early = append(l.early, e)
		return nil
	}
	l.extended(h, e)
	return nil
}

// extended applies an extended event (checked) to the lease h, with l.mu
// held, so that a lease's events apply in the order the child wrote them.
func (l *locker) extended(h held, e reply) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	r := lock.Renewal{Lease: h.le}
	if e.SentMs != nil {
		r.Sent = h.start.Add(ms(*e.SentMs))
	}
	switch e.Result {
	case resultOK:
		// a validity already spent is the smallest one: 0 would mean
		// the lock never expires
		v := max(ms(*e.ValidityMs), time.Nanosecond)
		h.le.Renew(h.start, v)
		r.Deadline = h.start.Add(v)
		if !r.Sent.IsZero() {
			r.TTL = max(r.Deadline.Sub(r.Sent), time.Nanosecond)
		}
	case resultRefused:
		r.Err = fmt.Errorf("%s: the library's own extension: %w: %s", l.name, lock.ErrNotHeld, e.Error)
	default:
		r.Err = fmt.Errorf("%s: the library's own extension: %s", l.name, e.Error)
	}
	if l.o.Renewed != nil {
		l.o.Renewed(r)
	}
}

// StillValid asks the child's library whether le may still be acted on,
// when its hello said it has a check of its own.
func (l *locker) StillValid(ctx context.Context, le *lock.Lease) (valid, ok bool, err error) {
	if !l.checks {
		return false, false, nil
	}
	r, err := l.call(ctx, request{Op: "check", Key: le.Key, Token: le.Token})
	switch {
	case err != nil:
		return false, true, fmt.Errorf("%s: check %s: %w", l.name, le.Key, err)
	case r.Result == resultOK:
		return true, true, nil
	case r.Result == resultRefused:
		return false, true, nil
	}
	return false, true, fmt.Errorf("%s: check %s: %s", l.name, le.Key, r.Error)
}

func (l *locker) answer(op, key string, r reply, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %s %s: %w", l.name, op, key, err)
	}
	switch r.Result {
	case resultOK:
		return nil
	case resultRefused:
		return fmt.Errorf("%s: %w: %s", l.name, lock.ErrNotHeld, r.Error)
	default:
		return fmt.Errorf("%s: %s %s: %s", l.name, op, key, r.Error)
	}
}

func (l *locker) Stop() error     { return l.c.signal(syscall.SIGSTOP) }
func (l *locker) Continue() error { return l.c.signal(syscall.SIGCONT) }
func (l *locker) Kill() error     { return l.c.signal(syscall.SIGKILL) }
func (l *locker) Close() error {
	err := l.c.close()
	l.clock.close()
	return err
}

// call sends one request, unless the child's clock stopped following the
// client's: what the child would answer then is not known.
func (l *locker) call(ctx context.Context, req request) (reply, error) {
	if err := l.clock.failed(); err != nil {
		return reply{}, err
	}
	return l.c.call(ctx, req)
}
