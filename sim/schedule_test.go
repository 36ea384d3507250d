package sim

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock/locktest"
	"github.com/locksim/locksim/sim/recorder"
)

// countingFault records its starts and stops.
type countingFault struct {
	mu            sync.Mutex
	starts, stops int
}

func (f *countingFault) String() string { return "counting" }
func (f *countingFault) Start(*World) error {
	f.mu.Lock()
	f.starts++
	f.mu.Unlock()
	return nil
}
func (f *countingFault) Stop(*World) error {
	f.mu.Lock()
	f.stops++
	f.mu.Unlock()
	return nil
}

func TestSchedulePointTriggersAndUntil(t *testing.T) {
	w := &World{rec: recorder.New()}
	started, cancelled := &countingFault{}, &countingFault{}
	s := newSchedule(w, []Planned{
		{Fault: started, Start: Trigger{Client: 0, Point: "p", Nth: 2}, Until: &Trigger{Client: 1, Point: "q"}},
		{Fault: cancelled, Start: Trigger{Client: 0, Point: "late"}, Until: &Trigger{Client: 1, Point: "q"}},
	})
	s.reached(0, "p")
	assert.Zero(t, started.starts, "nth 2: the first visit does not fire")
	s.reached(0, "p")
	assert.Equal(t, 1, started.starts)
	s.reached(1, "q") // ends the first, cancels the second before it starts
	assert.Equal(t, 1, started.stops)
	s.reached(0, "late")
	assert.Zero(t, cancelled.starts, "a fault whose until came first never starts")
	require.NoError(t, s.healAll())
	assert.Equal(t, 1, started.stops, "healing does not stop a fault twice")
	notes, never := s.unfired()
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "until came first", "a cancelled fault says why it did not start")
	assert.Equal(t, []int{2}, never, "a cancelled fault never acted: the run did not play it")

	ops := w.rec.History().Ops
	require.Len(t, ops, 1)
	assert.Equal(t, KindFault, ops[0].Kind)
	assert.True(t, strings.HasPrefix(ops[0].Fault, "counting"))
}

// A trigger of any client counts every client's visits together: its nth
// comes whichever clients make them, and a client's own trigger still
// counts that client's alone.
func TestScheduleAnyClientTrigger(t *testing.T) {
	w := &World{rec: recorder.New()}
	anyone, own := &countingFault{}, &countingFault{}
	s := newSchedule(w, []Planned{
		{Fault: anyone, Start: Trigger{AnyClient: true, Point: "p", Nth: 2}, Until: &Trigger{AnyClient: true, Point: "q", Nth: 3}},
		{Fault: own, Start: Trigger{Client: 1, Point: "p", Nth: 2}},
	})
	s.reached(1, "p")
	assert.Zero(t, anyone.starts, "one visit so far")
	s.reached(0, "p")
	assert.Equal(t, 1, anyone.starts, "client 1's visit and client 0's make two")
	assert.Zero(t, own.starts, "client 1 has visited once")
	s.reached(1, "p")
	assert.Equal(t, 1, own.starts)
	assert.Equal(t, 1, anyone.starts, "the third visit does not start it again")
	s.reached(0, "q")
	s.reached(1, "q")
	assert.Zero(t, anyone.stops)
	s.reached(0, "q")
	assert.Equal(t, 1, anyone.stops, "ended at the third visit of q by anyone")
	require.NoError(t, s.healAll())
	assert.Equal(t, "any client at p #2", Trigger{AnyClient: true, Point: "p", Nth: 2}.String())
}

func TestScheduleTimeTriggerAndHeal(t *testing.T) {
	w := &World{rec: recorder.New()}
	f, never := &countingFault{}, &countingFault{}
	s := newSchedule(w, []Planned{
		{Fault: f, Start: Trigger{At: time.Millisecond}},
		{Fault: never, Start: Trigger{Client: 0, Point: "never"}},
	})
	s.arm()
	require.Eventually(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.starts == 1 }, locktest.HangGuard, time.Millisecond, "hung: the 1ms trigger never started its fault")
	require.NoError(t, s.healAll())
	assert.Equal(t, 1, f.stops, "a fault without for/until lasts until the heal")
	notes, unfired := s.unfired()
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "never fired")
	assert.Equal(t, []int{2}, unfired, "ids as in the history")
}

// failingFault cannot start.
type failingFault struct{}

func (failingFault) String() string     { return "failing" }
func (failingFault) Start(*World) error { return errors.New("no such node") }
func (failingFault) Stop(*World) error  { return nil }

// A fault whose start failed never acted: the run did not play it.
func TestFailedStartIsUnfired(t *testing.T) {
	w := &World{rec: recorder.New()}
	s := newSchedule(w, []Planned{{Fault: failingFault{}, Start: Trigger{Client: 0, Point: "p"}}})
	s.reached(0, "p")
	require.Error(t, s.healAll())
	notes, never := s.unfired()
	assert.Equal(t, []int{1}, never)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "its start failed")
}

// The final heal marks the records of the faults it ended: at the run's
// end, and cut when that came before the fault's own end (its for: or
// until:). A fault healed by its own for: is neither; one without an end
// of its own is at the end but not cut.
func TestScheduleMarksFaultsTheRunsEndHealed(t *testing.T) {
	w := &World{rec: recorder.New()}
	own, open, until, long := &countingFault{}, &countingFault{}, &countingFault{}, &countingFault{}
	s := newSchedule(w, []Planned{
		{Fault: own, Start: Trigger{Client: 0, Point: "p"}, For: time.Millisecond},
		{Fault: open, Start: Trigger{Client: 0, Point: "p"}},
		{Fault: until, Start: Trigger{Client: 0, Point: "p"}, Until: &Trigger{Client: 1, Point: "never"}},
		{Fault: long, Start: Trigger{Client: 0, Point: "p"}, For: time.Hour},
	})
	s.reached(0, "p")
	require.Eventually(t, func() bool {
		own.mu.Lock()
		defer own.mu.Unlock()
		return own.stops == 1
	}, 5*time.Second, time.Millisecond)
	require.NoError(t, s.healAll())
	byID := map[int]Op{}
	for _, op := range w.rec.History().Ops {
		byID[op.FaultID] = op
	}
	require.Len(t, byID, 4)
	assert.False(t, byID[1].AtEnd || byID[1].Cut, "healed by its own for")
	assert.True(t, byID[2].AtEnd)
	assert.False(t, byID[2].Cut, "no end of its own: it was meant to last to the end")
	assert.True(t, byID[3].AtEnd && byID[3].Cut, "its until never came")
	assert.True(t, byID[4].AtEnd && byID[4].Cut, "its for was longer than what was left")
}
