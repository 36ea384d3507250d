package network

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"
)

// relay carries one direction of a connection through an in-memory proxy,
// doing what a toxiproxy link does: each chunk, as it arrives, meets the
// toxics in force on its stream (fate), and is dropped, resets the
// connection, or is handed on after the wire delay and any latency, in
// order: a chunk goes on no earlier than the one before it, and the delay
// counts from whichever is later, its arrival or the previous chunk's
// departure, as a proxy that reads the next chunk only once it has handed
// on the last.
//
// A chunk arrives as the writer writes it: the writer's end of the pipe
// hands it to arrive (pipeHalf.relay), and it reaches the far side as one
// delivery through the scheduler, posted when its delay ends. A proxy that
// read its end of the pipe would add a delivery and a goroutine's wake-up
// per chunk, at the same instant, for nothing the run could tell apart.
type relay struct {
	proxy  *memProxy
	conn   *memConn
	stream string     // "upstream" or "downstream", as the toxics name it
	dst    *pipeEnd   // the proxy's end of the other side, written to
	rnd    *rand.Rand // the wire delays and jitter of this direction

	mu    sync.Mutex
	queue []relayed   // arrived, not yet handed on, by due time; its array is reused
	last  time.Time   // when the latest queued chunk is due
	timer *time.Timer // calls fire; armed for queue[0] while queue is not empty
	// sending is held while handing chunks on, so that two timers'
	// hand-offs never interleave.
	sending sync.Mutex
	out     []relayed // the chunks being handed on, under sending; reused
}

// relayed is one chunk held by a relay, or (end) the connection's close.
type relayed struct {
	due   time.Time
	chunk []byte
	end   bool
}

// newRelay makes the relay of conn's stream direction that writes into
// dst; its delays are drawn from the proxy's seed and the connection's
// name, so that they do not depend on which connection of the proxy the
// Go scheduler runs first.
func newRelay(p *memProxy, c *memConn, link, stream string, dst *pipeEnd) *relay {
	h := fnv.New64a()
	h.Write([]byte(link + "/" + stream))
	return &relay{proxy: p, conn: c, stream: stream, dst: dst,
		rnd: rand.New(rand.NewPCG(p.seed^h.Sum64(), p.stream))}
}

// arrive takes a chunk written to the proxy, nil for the writer's close.
func (r *relay) arrive(chunk []byte) {
	now := time.Now()
	if chunk == nil {
		r.hold(now, 0, nil, true) // EOF: the proxy closes both sides
		return
	}
	drop, reset, delay := r.proxy.fate(r.stream, r.rnd)
	switch {
	case reset:
		r.hold(now, 0, nil, true)
	case drop:
	default:
		r.hold(now, delay, chunk, false)
	}
}

// hold queues what arrived at now to go on delay after the later of now
// and the previous chunk's departure; a close with nothing queued ahead of
// it closes at once.
func (r *relay) hold(now time.Time, delay time.Duration, chunk []byte, end bool) {
	r.mu.Lock()
	due := now
	if r.last.After(due) {
		due = r.last
	}
	due = due.Add(delay)
	if end && len(r.queue) == 0 {
		r.mu.Unlock()
		r.conn.close()
		return
	}
	r.last = due
	r.queue = append(r.queue, relayed{due: due, chunk: chunk, end: end})
	if len(r.queue) == 1 {
		r.arm(due.Sub(now))
	}
	r.mu.Unlock()
}

// arm sets the timer to call fire after d, under mu. The relay's one
// timer is reset each time (it is not pending then: the queue was empty, or
// fire runs from it), not made anew.
func (r *relay) arm(d time.Duration) {
	if r.timer == nil {
		r.timer = time.AfterFunc(d, r.fire)
		return
	}
	r.timer.Reset(d)
}

// fire hands on every queued chunk that is due, in order, and arms the
// timer for the next.
func (r *relay) fire() {
	r.sending.Lock()
	defer r.sending.Unlock()
	r.mu.Lock()
	now := time.Now()
	n := 0
	for n < len(r.queue) && !r.queue[n].due.After(now) {
		n++
	}
	r.out = append(r.out[:0], r.queue[:n]...)
	rest := copy(r.queue, r.queue[n:])
	clear(r.queue[rest:]) // no chunk held twice
	r.queue = r.queue[:rest]
	if len(r.queue) > 0 {
		r.arm(r.queue[0].due.Sub(now))
	}
	r.mu.Unlock()
	out := r.out
	defer clear(out)
	for _, x := range out {
		select {
		case <-r.conn.closed:
			return
		default:
		}
		if x.end {
			r.conn.close()
			return
		}
		if _, err := r.dst.writeOwned(x.chunk); err != nil {
			r.conn.close()
			return
		}
	}
}

// stop drops what the relay holds: its connection is closed.
func (r *relay) stop() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
	r.queue = nil
}
