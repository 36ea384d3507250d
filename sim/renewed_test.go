package sim_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// selfRenewing is setpx whose library renews each lease on its own timer,
// every TTL/3, unasked by the client, as rueidislock does in a process
// design's child. With report it tells the client of each renewal after
// the fact (lock.Options.Renewed), as the child's "extended" events do;
// with fails, each renewal is refused without touching the key, reported,
// and the renewer gives up.
type selfRenewing struct {
	lock.Locker
	o             lock.Options
	report, fails bool

	mu   sync.Mutex
	stop map[*lock.Lease]func()
}

const (
	selfRenewingName       = "test-setpx-self-renewing"
	selfRenewingSilentName = "test-setpx-self-renewing-silent"
	selfRenewingFailsName  = "test-setpx-self-renewing-fails"
)

func init() {
	for _, d := range []struct {
		name          string
		report, fails bool
	}{{selfRenewingName, true, false}, {selfRenewingSilentName, false, false}, {selfRenewingFailsName, true, true}} {
		info, err := lock.Lookup("setpx")
		if err != nil {
			panic(err)
		}
		info.Name = d.name
		info.Summary = "setpx renewed by its own timer, unasked (test only)"
		info.Watchdog = false
		info.New = func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
			inner, err := lock.New("setpx", nodes, o)
			if err != nil {
				return nil, err
			}
			return &selfRenewing{Locker: inner, o: o, report: d.report, fails: d.fails, stop: map[*lock.Lease]func(){}}, nil
		}
		if err := lock.Register(info); err != nil {
			panic(err)
		}
	}
}

func (s *selfRenewing) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	l, err := s.Locker.Acquire(ctx, key)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s.o.Clock.Sleep(rctx, s.o.TTL/3) == nil {
			sent := s.o.Clock.Now()
			if s.fails {
				if s.report {
					s.o.Renewed(lock.Renewal{Lease: l, Sent: sent, Err: fmt.Errorf("renew: %w", lock.ErrNotHeld)})
				}
				return
			}
			if err := s.Locker.(lock.Extender).Extend(rctx, l); err != nil {
				return
			}
			if s.report {
				s.o.Renewed(lock.Renewal{Lease: l, Sent: sent, Deadline: l.Deadline(), TTL: s.o.TTL})
			}
		}
	}()
	s.mu.Lock()
	s.stop[l] = func() { cancel(); <-done }
	s.mu.Unlock()
	return l, nil
}

func (s *selfRenewing) end(l *lock.Lease) {
	s.mu.Lock()
	f := s.stop[l]
	delete(s.stop, l)
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

func (s *selfRenewing) Release(ctx context.Context, l *lock.Lease) error {
	s.end(l)
	return s.Locker.Release(ctx, l)
}

func (s *selfRenewing) Close() error {
	s.mu.Lock()
	var all []*lock.Lease
	for l := range s.stop {
		all = append(all, l)
	}
	s.mu.Unlock()
	for _, l := range all {
		s.end(l)
	}
	return nil
}

// longHold: client 0 holds the lock for 2 s, more than six TTLs, while
// client 1 waits for it; its library keeps the key meanwhile.
func longHold(algo string) sim.Config {
	return sim.Config{
		Algorithm: algo,
		Options:   lock.Options{TTL: 300 * time.Millisecond},
		Clients:   2,
		Duration:  3 * time.Second,
		Hold:      2 * time.Second,
		Seed:      5,
	}
}

// TestLibraryRenewalsKeepTheLease: renewals a design's library made on
// its own, reported after the fact (lock.Renewal), are extends in the
// history, with the deadline the lease moved to; every check reads them
// as it reads the watchdog's, so the client that waits through the long
// hold is not starved. The same design renewing silently leaves the lease
// at its TTL, and the waiter looks starved: the reports are what keeps
// the verdict true.
func TestLibraryRenewalsKeepTheLease(t *testing.T) {
	res, result := runChecked(t, longHold(selfRenewingName))
	h := res.History
	var acquired *history.Op
	extends := 0
	for i, op := range h.Ops {
		switch {
		case op.Client == 0 && op.Kind == sim.KindAcquire && op.Outcome == sim.OK && acquired == nil:
			acquired = &h.Ops[i]
		case op.Client == 0 && op.Kind == sim.KindExtend && acquired != nil && op.Token == acquired.Token:
			extends++
			assert.Equal(t, sim.OK, op.Outcome)
			assert.Greater(t, op.Deadline, acquired.Deadline, "an extend's deadline lies past the acquire's")
			assert.LessOrEqual(t, op.Call, op.Return)
			assert.Greater(t, op.Call, acquired.Return, "sent after the acquire")
		}
	}
	require.NotNil(t, acquired)
	assert.GreaterOrEqual(t, extends, 4, "a 2 s hold renewed every 100 ms")
	assert.Empty(t, checker.Starved(h, checker.Read(h)))
	assert.Equal(t, vocab.Safe, verdicts(result)["liveness"], "checks: %v", result.Checks)
	// client 0's first lease is one window, from the acquire to the release
	for _, w := range checker.Read(h).LeasesOf(0) {
		if w.Token == acquired.Token {
			assert.Equal(t, checker.EndReleased, w.Ended, "window %+v", w)
			assert.GreaterOrEqual(t, w.End-w.Start, 2*time.Second-50*time.Millisecond, "window %+v", w)
		}
	}

	silent, _ := runChecked(t, longHold(selfRenewingSilentName))
	assert.NotEmpty(t, checker.Starved(silent.History, checker.Read(silent.History)),
		"unreported renewals: the lease ends at the TTL and the waiter looks starved")
}

// TestFailedLibraryRenewalExtendsNothing: a renewal the library reports
// as refused is a failed extend in the history, and the lease ends at the
// acquire's deadline, as the key does: client 1 takes the lock while
// client 0 works on, which the exclusion check catches.
func TestFailedLibraryRenewalExtendsNothing(t *testing.T) {
	res, result := runChecked(t, longHold(selfRenewingFailsName))
	h := res.History
	var acquired *history.Op
	failed := 0
	for i, op := range h.Ops {
		switch {
		case op.Client == 0 && op.Kind == sim.KindAcquire && op.Outcome == sim.OK && acquired == nil:
			acquired = &h.Ops[i]
		case op.Kind == sim.KindExtend:
			failed++
			assert.Equal(t, sim.Fail, op.Outcome, "%+v", op)
			assert.Zero(t, op.Deadline)
		}
	}
	require.NotNil(t, acquired)
	assert.Positive(t, failed)
	for _, w := range checker.Read(h).LeasesOf(0) {
		if w.Token == acquired.Token {
			assert.Equal(t, checker.EndExpired, w.Ended, "window %+v", w)
			assert.LessOrEqual(t, w.End-w.Start, 300*time.Millisecond, "window %+v", w)
		}
	}
	assert.Equal(t, vocab.Unsafe, verdicts(result)["exclusion"], "checks: %v", result.Checks)
}
