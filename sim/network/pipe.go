package network

import (
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/locksim/locksim/vtime"
)

// memPipe is an in-memory connection whose every delivery goes through the
// run's scheduler (vtime.Scheduler): a write returns at once and posts the
// chunk under the key "<link>/<direction>#<n>"; the chunk reaches the
// reader when the scheduler picks it, chunks of one direction in order. A
// read deadline that passes is posted too, as is a close, which reaches
// the other end after the chunks written before it. net.Pipe would hand a
// chunk over the moment both ends meet, in whatever order the Go scheduler
// runs them; here the order is the run's seed's. Without a scheduler the
// chunk is delivered during the write.
//
// The two ends are a client's and a server's: the client end tells a peer
// that closed the way a TCP socket does (SyscallConn, below).
func memPipe(s *vtime.Scheduler, link string) (client, server net.Conn) {
	up := newPipeHalf(s, link+"/up")
	down := newPipeHalf(s, link+"/down")
	a := &pipeEnd{rd: down, wr: up, link: link, closed: make(chan struct{})}
	b := &pipeEnd{rd: up, wr: down, link: link, closed: make(chan struct{})}
	return a, b
}

// pipeHalf is one direction of a memPipe.
type pipeHalf struct {
	sched   *vtime.Scheduler
	key     string
	deliver func() // deliverNext, bound once: a method value made per post is an allocation

	mu      sync.Mutex
	sent    int      // chunks posted, for their keys
	keyBuf  []byte   // "<key>#", then a key being built
	transit [][]byte // posted, not yet delivered; nil is a close; its array is reused
	buf     []byte   // delivered, not yet read
	eof     bool     // the writer's close was delivered
	ready   chan struct{}
	// relay, when set, takes every chunk (nil: the close) as it is
	// written, in the writer's goroutine, instead of the scheduler and
	// the reader: the half is a proxy's end, and the relay carries the
	// chunk on to the proxy's other side (relay.go).
	relay func(chunk []byte)
}

// relayTo hands every chunk written from now on to f.
func (h *pipeHalf) relayTo(f func(chunk []byte)) {
	h.mu.Lock()
	h.relay = f
	h.mu.Unlock()
}

func newPipeHalf(s *vtime.Scheduler, key string) *pipeHalf {
	h := &pipeHalf{sched: s, key: key, keyBuf: []byte(key + "#"), ready: make(chan struct{}, 1)}
	h.deliver = h.deliverNext
	return h
}

func (h *pipeHalf) post(chunk []byte) {
	h.mu.Lock()
	if f := h.relay; f != nil {
		h.mu.Unlock()
		f(chunk)
		return
	}
	h.sent++
	h.keyBuf = strconv.AppendInt(h.keyBuf[:len(h.key)+1], int64(h.sent), 10)
	key := string(h.keyBuf)
	h.transit = append(h.transit, chunk)
	h.mu.Unlock()
	h.sched.Post(key, h.deliver)
}

// deliverNext moves the oldest chunk in transit to the reader.
func (h *pipeHalf) deliverNext() {
	h.mu.Lock()
	if len(h.transit) > 0 {
		c := h.transit[0]
		// Shifted down, not resliced: the next post appends into the
		// same array (mostly one chunk is in transit).
		n := copy(h.transit, h.transit[1:])
		h.transit[n] = nil
		h.transit = h.transit[:n]
		if c == nil {
			h.eof = true
		} else if !h.eof && len(h.buf) == 0 {
			h.buf = c // the pipe's own copy: read from as it is
		} else if !h.eof {
			h.buf = append(h.buf, c...)
		}
	}
	h.mu.Unlock()
	h.signal()
}

func (h *pipeHalf) signal() {
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

// pipeEnd is one end of a memPipe.
type pipeEnd struct {
	rd, wr *pipeHalf
	link   string

	mu        sync.Mutex
	isClosed  bool
	closed    chan struct{}
	rDeadline time.Time
	rGen      int  // SetReadDeadline calls, to tell a stale timer
	rExpired  bool // the deadline's expiry was delivered
	// rTimer calls readDeadlinePassed; made once, reset for every
	// deadline. rArmed: it is set for the deadline of call rArmGen and
	// was not stopped since. rFiring: the calls whose timer had fired when
	// the next call stopped it, oldest first, each one's callback yet to
	// run.
	rTimer    *time.Timer
	rArmed    bool
	rArmGen   int
	rFiring   []int
	wDeadline time.Time
}

func (e *pipeEnd) Read(b []byte) (int, error) {
	for {
		e.mu.Lock()
		closed, expired, dl := e.isClosed, e.rExpired, e.rDeadline
		e.mu.Unlock()
		if closed {
			return 0, io.ErrClosedPipe
		}
		h := e.rd
		h.mu.Lock()
		if len(h.buf) > 0 {
			n := copy(b, h.buf)
			h.buf = h.buf[n:]
			if len(h.buf) == 0 {
				h.buf = nil
			}
			h.mu.Unlock()
			return n, nil
		}
		eof := h.eof
		h.mu.Unlock()
		if eof {
			return 0, io.EOF
		}
		if expired || (!dl.IsZero() && !time.Now().Before(dl)) {
			return 0, os.ErrDeadlineExceeded
		}
		select {
		case <-h.ready:
		case <-e.closed:
		}
	}
}

func (e *pipeEnd) Write(b []byte) (int, error) { return e.write(b, false) }

// writeOwned writes a chunk the caller hands over and never touches again
// (a relay's): it is posted as it is, not copied.
func (e *pipeEnd) writeOwned(b []byte) (int, error) { return e.write(b, true) }

func (e *pipeEnd) write(b []byte, owned bool) (int, error) {
	e.mu.Lock()
	closed, dl := e.isClosed, e.wDeadline
	e.mu.Unlock()
	if closed {
		return 0, io.ErrClosedPipe
	}
	e.rd.mu.Lock()
	peerGone := e.rd.eof
	e.rd.mu.Unlock()
	if peerGone {
		return 0, io.ErrClosedPipe
	}
	if !dl.IsZero() && !time.Now().Before(dl) {
		return 0, os.ErrDeadlineExceeded
	}
	if len(b) == 0 {
		return 0, nil
	}
	if !owned {
		b = append([]byte(nil), b...)
	}
	e.wr.post(b)
	return len(b), nil
}

func (e *pipeEnd) Close() error {
	e.mu.Lock()
	if e.isClosed {
		e.mu.Unlock()
		return nil
	}
	e.isClosed = true
	close(e.closed)
	e.disarmLocked()
	e.mu.Unlock()
	e.wr.post(nil)
	return nil
}

func (e *pipeEnd) SetDeadline(t time.Time) error {
	_ = e.SetWriteDeadline(t)
	return e.SetReadDeadline(t)
}

// SetReadDeadline arms a timer whose expiry goes through the scheduler
// under "<link>/<direction>/deadline#<n>".
func (e *pipeEnd) SetReadDeadline(t time.Time) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rGen++
	e.rDeadline, e.rExpired = t, false
	e.disarmLocked()
	if t.IsZero() || e.isClosed {
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		return nil // Read sees it has passed
	}
	e.rArmed, e.rArmGen = true, e.rGen
	if e.rTimer == nil {
		e.rTimer = time.AfterFunc(d, e.readDeadlinePassed)
	} else {
		e.rTimer.Reset(d)
	}
	return nil
}

// disarmLocked stops the read deadline's timer, under e.mu; a timer that
// has fired already has its callback on the way, which is told which
// call's deadline it was (rFiring).
func (e *pipeEnd) disarmLocked() {
	if !e.rArmed {
		return
	}
	e.rArmed = false
	if !e.rTimer.Stop() {
		e.rFiring = append(e.rFiring, e.rArmGen)
	}
}

// readDeadlinePassed is the read deadline timer's callback: the passing of
// the deadline of one SetReadDeadline call is posted under
// "<link>/<direction>/deadline#<call>", and marks the read expired if no
// later call replaced that deadline by the time it is picked.
func (e *pipeEnd) readDeadlinePassed() {
	e.mu.Lock()
	var gen int
	if len(e.rFiring) > 0 {
		gen = e.rFiring[0]
		e.rFiring = e.rFiring[1:]
	} else {
		gen = e.rArmGen
		e.rArmed = false
	}
	e.mu.Unlock()
	// The key is built only for a deadline that passes: most are set
	// again before they do.
	key := e.rd.key + "/deadline#" + strconv.Itoa(gen)
	e.rd.sched.Post(key, func() {
		e.mu.Lock()
		if e.rGen == gen {
			e.rExpired = true
		}
		e.mu.Unlock()
		e.rd.signal()
	})
}

func (e *pipeEnd) SetWriteDeadline(t time.Time) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wDeadline = t
	return nil
}

type pipeAddr string

func (a pipeAddr) Network() string { return "mem" }
func (a pipeAddr) String() string  { return string(a) }

func (e *pipeEnd) LocalAddr() net.Addr  { return pipeAddr(e.link) }
func (e *pipeEnd) RemoteAddr() net.Addr { return pipeAddr(e.link) }

// SyscallConn lets go-redis check an idle pooled connection before reuse
// as it checks a socket (a non-blocking read): it finds one whose peer
// closed (a killed node, a healed cut) dead and dials afresh, instead of
// failing the next command.
func (e *pipeEnd) SyscallConn() (syscall.RawConn, error) { return peekConn{e.rd}, nil }

// peekConn answers go-redis's health check: Read fails once the peer's
// close was delivered and otherwise reports nothing to read, without
// touching f (there is no descriptor to read from).
type peekConn struct{ h *pipeHalf }

func (p peekConn) Read(func(fd uintptr) bool) error {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	if p.h.eof {
		return io.EOF
	}
	return nil
}

func (p peekConn) Control(func(fd uintptr)) error {
	return errors.New("in-memory connection: no descriptor")
}

func (p peekConn) Write(func(fd uintptr) bool) error {
	return errors.New("in-memory connection: no descriptor")
}
