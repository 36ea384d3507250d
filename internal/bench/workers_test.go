package bench

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/lock"
)

// TestWorkerStopsWhenInterrupted: a cancelled context makes every attempt
// fail at once; the worker must return instead of spinning on failures
// until its segment's deadline.
func TestWorkerStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &segment{deadline: time.Now().Add(time.Hour), stop: make(chan struct{})}
	w := &designWorker{key: "k", retry: lock.RetryPolicy{Interval: time.Millisecond}}
	w.try = func(ctx context.Context, _ string) (*lock.Lease, error) { return nil, ctx.Err() }
	m := newMeter()
	done := make(chan struct{})
	go func() {
		w.run(ctx, s, m)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		close(s.stop) // let the worker go, then fail
		<-done
		t.Fatalf("worker still cycling 20 s after its context ended (%d errors counted)", m.errs)
	}
	assert.LessOrEqual(t, m.errs, int64(1))
}
