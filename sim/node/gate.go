package node

import (
	"strconv"
	"sync"

	"github.com/locksim/locksim/vtime"
)

// gate holds the commands of a paused in-process node, the way a SIGSTOPped
// redis-server leaves them in its socket buffers: they run after resume.
// A kill opens the gate for good and tells the held commands to drop, since
// a crashed server never answers what it had not yet read.
type gate struct {
	// sched lets held commands go on after a resume in the run's order
	// (vtime.Scheduler), under "<name>#<n>"; nil in real time.
	sched *vtime.Scheduler
	name  string
	held  int

	mu     sync.Mutex
	open   chan struct{} // non-nil while paused; closed to release the waiters
	killed bool
	dead   chan struct{} // closed by kill; made anew, lazily, after a revive
}

// died is closed when the node is killed: a command that waits inside the
// node (an emulated WAIT) gives up on it. Killing closes the server, which
// waits for every connection goroutine while the node's lock is held; in
// virtual time a goroutine blocked on that lock stops the clock, so a
// waiting command must end on the kill, not on a timer.
func (g *gate) died() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dead == nil {
		g.dead = make(chan struct{})
		if g.killed {
			close(g.dead)
		}
	}
	return g.dead
}

// pass blocks while the gate is paused and reports whether the command may
// run (false once the node was killed).
func (g *gate) pass() bool {
	g.mu.Lock()
	wait, killed := g.open, g.killed
	key := ""
	if wait != nil && g.sched != nil {
		g.held++
		key = g.name + "#" + strconv.Itoa(g.held)
	}
	g.mu.Unlock()
	if killed {
		return false
	}
	if wait != nil {
		<-wait
		// In the run's order, unless the node is killed first: then it is
		// dropped at once, not through the scheduler. The kill holds the
		// node's lock until miniredis has closed every connection, this
		// one's included, and a goroutine waiting for that lock (the
		// observer reading the node) is not durably blocked, so the
		// scheduler would never get to pick it. Every held command is
		// dropped, in whatever order: nothing depends on it.
		picked := make(chan struct{})
		g.sched.Post(key, func() { close(picked) })
		select {
		case <-picked:
		case <-g.died():
			return false
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.killed
}

func (g *gate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open == nil {
		g.open = make(chan struct{})
	}
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resumeLocked()
}

func (g *gate) resumeLocked() {
	if g.open != nil {
		close(g.open)
		g.open = nil
	}
}

func (g *gate) paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open != nil
}

// kill releases every held command with the order to drop it; a restarted
// node starts unpaused, like a new process.
func (g *gate) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.killed = true
	g.resumeLocked()
	if g.dead != nil {
		close(g.dead)
	}
}

func (g *gate) revive() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.killed = false
	g.dead = nil
}
