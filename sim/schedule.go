package sim

import (
	"github.com/locksim/locksim/history"

	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// schedule starts and stops the planned faults on time or when a client
// reaches a point, and records each as a fault operation.
type schedule struct {
	w      *World
	mu     sync.Mutex
	faults []*scheduled
	counts map[pointKey]int
	// watched are the points some fault starts or stops at: visits of
	// the others are not counted, as no trigger reads them.
	watched []history.Point
	timers  []*time.Timer
	errs    []error
	closed  bool
}

type pointKey struct {
	client int
	point  history.Point
}

type scheduled struct {
	id      int
	plan    Planned
	mu      sync.Mutex // serialises Start/Stop of this fault
	started bool
	stopped bool
	// cancelled: its Until came before its Start, so it never runs (a fault
	// that waits for "until client 1 is inside" has nothing left to do).
	cancelled bool
	failed    bool // Start returned an error: the fault never acted
	at        time.Duration
}

func newSchedule(w *World, plans []Planned) *schedule {
	s := &schedule{w: w, counts: map[pointKey]int{}}
	for i, p := range plans {
		s.faults = append(s.faults, &scheduled{id: i + 1, plan: p})
		if p.Start.OnPoint() {
			s.watched = append(s.watched, p.Start.Point)
		}
		if p.Until != nil && p.Until.OnPoint() {
			s.watched = append(s.watched, p.Until.Point)
		}
	}
	return s
}

// arm starts the timers of time-triggered faults.
func (s *schedule) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if !f.plan.Start.OnPoint() {
			f := f
			s.timers = append(s.timers, s.w.sched.AfterFunc(fmt.Sprintf("fault/%d/start", f.id), f.plan.Start.At, func() { s.start(f) }))
		}
	}
}

// reached is called by a client at every point, before its gate: a fault it
// triggers is in force before the client takes its next step.
func (s *schedule) reached(client int, point history.Point) {
	if !slices.Contains(s.watched, point) {
		return // no trigger is at point (s.watched is fixed)
	}
	s.mu.Lock()
	k, all := pointKey{client, point}, pointKey{NoClient, point}
	s.counts[k]++
	s.counts[all]++
	n := visits{mine: s.counts[k], all: s.counts[all]}
	var starts, stops []*scheduled
	for _, f := range s.faults {
		if matches(f.plan.Start, client, point, n) {
			starts = append(starts, f)
		}
		if f.plan.Until != nil && matches(*f.plan.Until, client, point, n) {
			stops = append(stops, f)
		}
	}
	s.mu.Unlock()
	for _, f := range stops {
		s.stopOrCancel(f)
	}
	for _, f := range starts {
		s.start(f)
	}
}

// visits counts a point's visits so far, this one included: the client's
// own, and every client's together.
type visits struct{ mine, all int }

func matches(t Trigger, client int, point history.Point, n visits) bool {
	if !t.OnPoint() || t.Point != point {
		return false
	}
	if t.AnyClient {
		return max(t.Nth, 1) == n.all
	}
	return t.Client == client && max(t.Nth, 1) == n.mine
}

func (s *schedule) start(f *scheduled) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if f.started || f.cancelled || closed {
		return
	}
	f.started = true
	f.at = s.w.rec.Now()
	if err := f.plan.Fault.Start(s.w); err != nil {
		f.stopped, f.failed = true, true
		s.fail(fmt.Errorf("fault %d %s: start: %w", f.id, f.plan.Fault, err))
		s.w.rec.Add(Op{Kind: KindFault, Client: NoClient, Call: f.at, Return: f.at, Outcome: Fail,
			Fault: f.plan.String(), FaultID: f.id, Target: targetIn(f.plan.Fault, s.w), Err: err.Error()})
		return
	}
	if f.plan.For > 0 {
		s.mu.Lock()
		s.timers = append(s.timers, s.w.sched.AfterFunc(fmt.Sprintf("fault/%d/stop", f.id), f.plan.For, func() { s.stop(f, false) }))
		s.mu.Unlock()
	}
}

// stopOrCancel ends a running fault, or cancels one that has not started.
func (s *schedule) stopOrCancel(f *scheduled) {
	f.mu.Lock()
	if !f.started {
		f.cancelled = true
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	s.stop(f, false)
}

// stop heals f. atEnd: the run's final heal, with the run's duration over;
// the record then says so, and whether that cut the fault short of its
// own end (for: or until:).
func (s *schedule) stop(f *scheduled, atEnd bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.started || f.stopped {
		return
	}
	f.stopped = true
	now := s.w.rec.Now()
	err := f.plan.Fault.Stop(s.w)
	op := Op{Kind: KindFault, Client: NoClient, Call: f.at, Return: s.w.rec.Now(), Outcome: OK,
		Fault: f.plan.String(), FaultID: f.id, Target: targetIn(f.plan.Fault, s.w),
		AtEnd: atEnd, Cut: atEnd && (f.plan.Until != nil || f.plan.For > 0 && now < f.at+f.plan.For)}
	if err != nil {
		op.Outcome, op.Err = Unknown, err.Error()
		s.fail(fmt.Errorf("fault %d %s: heal: %w", f.id, f.plan.Fault, err))
	}
	s.w.rec.Add(op)
}

func (s *schedule) fail(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}

// healAll cancels pending triggers and heals every active fault. Faults that
// never fired are not recorded.
func (s *schedule) healAll() error {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.timers {
		t.Stop()
	}
	faults := s.faults
	s.mu.Unlock()
	for _, f := range faults {
		s.stop(f, true)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// unfired lists faults that never acted: their trigger never came, their
// until came first (cancelled), or their start failed. A scenario that
// relies on them did not test what it says, whichever the reason.
func (s *schedule) unfired() (notes []string, never []int) {
	for _, f := range s.faults {
		f.mu.Lock()
		switch {
		case f.cancelled:
			notes = append(notes, fmt.Sprintf("fault %d %s did not start: its until came first", f.id, f.plan))
			never = append(never, f.id)
		case f.failed:
			notes = append(notes, fmt.Sprintf("fault %d %s did not start: its start failed", f.id, f.plan))
			never = append(never, f.id)
		case !f.started:
			notes = append(notes, fmt.Sprintf("fault %d %s never fired", f.id, f.plan))
			never = append(never, f.id)
		}
		f.mu.Unlock()
	}
	return notes, never
}
