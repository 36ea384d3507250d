package vtime

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing/synctest"
	"time"
)

// Scheduler makes a bubble's run replay exactly. Virtual time fixes when
// things happen but not in which order the goroutines woken at one instant
// run: the Go scheduler picks, differently on every run. A Scheduler takes
// that choice over. Every event that lets the simulation progress (a chunk
// delivered on an in-memory connection, a read deadline that passes, a
// sleep that ends, a fault's timer) is posted to it under a key that names
// it the same way on every run (a link and a sequence number, a client and
// a sequence number), and waits there. The scheduler's goroutine loops:
// synctest.Wait, until every other goroutine of the bubble is durably
// blocked, so that every event of the instant has been posted; then one
// pending event, picked by a generator seeded with the run's seed over the
// events sorted by key, is let go, and the loop waits again. With nothing
// pending it blocks on a channel, which lets the clock move to the next
// timer; the first event posted wakes it. What runs between two picks is
// then a function of the events picked so far, and the run of the seed.
//
// A nil *Scheduler lets every event go at once: the code that posts works
// the same outside virtual time.
type Scheduler struct {
	mu      sync.Mutex
	rnd     *rand.Rand
	pending []event
	stopped bool
	// idle: the loop found nothing pending and waits for wake; only then
	// does a post need to send on wake.
	idle   bool
	wake   chan struct{}
	done   chan struct{}
	exited chan struct{}
	picks  int
}

type event struct {
	key string
	act func()
}

// StartScheduler starts a scheduler in the calling goroutine's bubble; it
// must be stopped with Stop before the bubble's function returns.
func StartScheduler(seed uint64) *Scheduler {
	s := &Scheduler{
		rnd:    rand.New(rand.NewPCG(seed, 0x5eed_5c4e_d01e)),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go s.loop()
	return s
}

// Post hands act to the scheduler under key; act runs in the scheduler's
// goroutine when picked, so it must not block (it sets state and wakes
// whoever waits for it). Keys must be unique among pending events and must
// not depend on goroutine timing. On a nil or stopped scheduler act runs at
// once.
func (s *Scheduler) Post(key string, act func()) {
	if s == nil {
		act()
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		act()
		return
	}
	s.pending = append(s.pending, event{key, act})
	idle := s.idle
	s.idle = false
	s.mu.Unlock()
	if idle {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Gate blocks until the scheduler picks key.
func (s *Scheduler) Gate(key string) {
	if s == nil {
		return
	}
	ch := make(chan struct{})
	s.Post(key, func() { close(ch) })
	<-ch
}

// Sleep waits d or until ctx ends, whichever the scheduler lets go first,
// and returns ctx's error if that was ctx. The timer's end is posted under
// key, ctx's end under key + "!".
func (s *Scheduler) Sleep(ctx context.Context, key string, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if s == nil {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	w := &sleeper{s: s, key: key, woke: make(chan bool, 1)}
	t := time.AfterFunc(d, w.timerEnded)
	// ctx's end is posted once if ctx ends before the sleep is over: by
	// the sleeping goroutine, which ctx's end wakes, or at its wake-up by
	// the timer. (A context.AfterFunc would post the same, from a
	// goroutine of its own, at the cost of a registration with ctx and
	// its removal on every sleep.)
	var byCtx bool
	select {
	case byCtx = <-w.woke:
		if ctx.Err() != nil {
			w.ctxEnded()
		}
	case <-ctx.Done():
		w.ctxEnded()
		byCtx = <-w.woke
	}
	t.Stop()
	if byCtx {
		return ctx.Err()
	}
	return nil
}

// sleeper is one Sleep: what its timer's and its context's ends post, and
// the first of them to be picked wakes it; its state is one allocation,
// its callbacks method values.
type sleeper struct {
	s    *Scheduler
	key  string
	once sync.Once
	woke chan bool // true: by ctx
}

func (w *sleeper) timerEnded() { w.s.Post(w.key, w.byTimer) }
func (w *sleeper) ctxEnded()   { w.s.Post(w.key+"!", w.byCtx) }
func (w *sleeper) byTimer()    { w.once.Do(func() { w.woke <- false }) }
func (w *sleeper) byCtx()      { w.once.Do(func() { w.woke <- true }) }

// AfterFunc calls f in its own goroutine after d, once the scheduler has
// picked key; Stop on the returned timer keeps it from being posted.
func (s *Scheduler) AfterFunc(key string, d time.Duration, f func()) *time.Timer {
	return time.AfterFunc(d, func() {
		s.Gate(key)
		f()
	})
}

// Picks is how many events the scheduler has let go.
func (s *Scheduler) Picks() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.picks
}

// Stop ends the scheduler: every pending event is let go, in key order,
// and events posted later go at once. It is idempotent.
func (s *Scheduler) Stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		<-s.exited
		return
	}
	s.stopped = true
	s.mu.Unlock()
	close(s.done)
	<-s.exited
}

func (s *Scheduler) loop() {
	defer close(s.exited)
	for {
		synctest.Wait()
		s.mu.Lock()
		if s.stopped {
			rest := s.pending
			s.pending = nil
			s.mu.Unlock()
			slices.SortStableFunc(rest, byKey)
			for _, e := range rest {
				e.act()
			}
			return
		}
		if len(s.pending) == 0 {
			s.idle = true
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.done:
			}
			continue
		}
		slices.SortStableFunc(s.pending, byKey)
		i := s.rnd.IntN(len(s.pending))
		e := s.pending[i]
		s.pending = slices.Delete(s.pending, i, i+1)
		s.picks++
		s.mu.Unlock()
		e.act()
	}
}

func byKey(a, b event) int { return strings.Compare(a.key, b.key) }

type schedKey struct{}

// WithScheduler returns ctx carrying s.
func WithScheduler(ctx context.Context, s *Scheduler) context.Context {
	return context.WithValue(ctx, schedKey{}, s)
}

// SchedulerFrom returns the Scheduler ctx carries, or nil.
func SchedulerFrom(ctx context.Context) *Scheduler {
	s, _ := ctx.Value(schedKey{}).(*Scheduler)
	return s
}
