package sim

import (
	"sync"
	"time"

	"github.com/locksim/locksim/sim/recorder"
)

// Resource is the thing the lock protects, e.g. a file in shared storage. It
// keeps a serial log: every operation that reaches it is stamped with the
// true instant it was applied and its place in the log, under one mutex, so
// the log is the exact order of effects. With fencing on it rejects writes
// whose token is lower than the largest it has accepted for the key (equal
// tokens pass: one holder writes several times).
type Resource struct {
	rec *recorder.Recorder

	mu      sync.Mutex
	seq     int64
	lastAt  time.Duration
	highest map[string]int64
}

// newResource makes an empty resource stamping with rec's true time.
func newResource(rec *recorder.Recorder) *Resource {
	return &Resource{rec: rec, highest: map[string]int64{}}
}

// Apply performs op at the resource, filling in At, Seq and, for fenced
// writes, whether the resource accepted it.
func (r *Resource) Apply(op *Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	at := r.rec.Now()
	if at <= r.lastAt { // keep At strictly ordered like Seq
		at = r.lastAt + 1
	}
	r.lastAt = at
	op.At, op.Seq = at, r.seq
	op.Outcome = OK
	if op.Kind == KindWrite {
		if op.Fence < r.highest[op.Key] {
			op.Outcome = Fail
			op.Err = "rejected: stale fencing token"
			return
		}
		r.highest[op.Key] = op.Fence
	}
}
