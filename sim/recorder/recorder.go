package recorder

import (
	"slices"
	"sync"
	"time"

	"github.com/locksim/locksim/history"
)

// Recorder collects the history in true time. Call stamps must be taken
// before a request is sent and Return stamps after its reply is in hand, so
// every recorded interval contains the real effect.
type Recorder struct {
	origin time.Time
	mu     sync.Mutex
	ops    []history.Op
}

// New starts true time now.
func New() *Recorder { return &Recorder{origin: time.Now()} }

// NewSized starts true time now, with room for n operations: a run's
// history grown from nothing is copied a dozen times on the way, each
// copy zeroed, and an operation is a few hundred bytes.
func NewSized(n int) *Recorder {
	return &Recorder{origin: time.Now(), ops: make([]history.Op, 0, max(n, 0))}
}

// Restart moves true time 0 to now, before anything was recorded: the run
// begins once its clients are ready (a process design's children take
// seconds to start on a loaded machine).
func (r *Recorder) Restart() { r.origin = time.Now() }

// Origin is true time 0.
func (r *Recorder) Origin() time.Time { return r.origin }

// Now is true time since the run's start (monotonic).
func (r *Recorder) Now() time.Duration { return time.Since(r.origin) }

// Add appends a completed operation.
func (r *Recorder) Add(op history.Op) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

// History returns what was recorded so far. It shares the recorder's
// array up to its length, not a copy (a run's history is hundreds of
// kilobytes): operations added later go past it, and neither side
// changes an operation once recorded.
func (r *Recorder) History() history.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	return history.History{Ops: slices.Clip(r.ops)}
}
