package sim

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/locksim/locksim/vtime"
)

// ErrCrashed is returned at a crashed client's gate: it never runs again.
var ErrCrashed = errors.New("client crashed")

// Gate is what every step of a client, and its background goroutines, pass
// through. Paused, it blocks them all, as a GC pause or a frozen VM stops a
// whole process; crashed, it stops them for good.
type Gate struct {
	// wake lets a goroutine that waited at the gate go on in the run's
	// order (vtime.Scheduler), under "<name>#<n>"; nil in real time.
	sched *vtime.Scheduler
	name  string
	waits int

	mu      sync.Mutex
	pauses  int           // nested pauses: overlapping faults each hold one
	resume  chan struct{} // closed when the last pause ends
	crashed bool
}

// newGate returns an open gate.
func newGate() *Gate { return &Gate{resume: closedChan()} }

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Pass blocks while the gate is paused. It returns ErrCrashed once the client
// crashed and ctx's error if ctx ends first; an open gate passes unless
// ctx has ended.
func (g *Gate) Pass(ctx context.Context) error {
	for {
		g.mu.Lock()
		crashed, wait := g.crashed, g.resume
		open := isClosed(wait)
		key := ""
		if g.sched != nil && !open {
			// Numbered when it begins to wait, in the run's order.
			g.waits++
			key = g.name + "#" + strconv.Itoa(g.waits)
		}
		g.mu.Unlock()
		if crashed {
			return ErrCrashed
		}
		if open {
			// Told apart before any select: a select over an open gate
			// and an ended ctx would choose at random, and a run of one
			// seed would not replay.
			return ctx.Err()
		}
		select {
		case <-wait:
			if key != "" {
				g.sched.Gate(key)
			}
			g.mu.Lock()
			still := g.pauses > 0 || g.crashed
			g.mu.Unlock()
			if !still {
				return nil
			}
		case <-ctx.Done():
			if key != "" {
				g.sched.Gate(key)
			}
			return ctx.Err()
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Pause closes the gate until a matching Resume.
func (g *Gate) Pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pauses == 0 {
		g.resume = make(chan struct{})
	}
	g.pauses++
}

// Resume ends one Pause.
func (g *Gate) Resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pauses == 0 {
		return
	}
	g.pauses--
	if g.pauses == 0 {
		close(g.resume)
	}
}

// Paused reports whether a pause is in force.
func (g *Gate) Paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pauses > 0
}

// Crash stops the client for good and wakes whatever waits at the gate.
func (g *Gate) Crash() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.crashed = true
	if g.pauses > 0 {
		g.pauses = 0
		close(g.resume)
	}
}

// Crashed reports whether Crash was called.
func (g *Gate) Crashed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.crashed
}
