package bench

import (
	"context"
	"errors"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// meter is one client's tally for one segment. Only that client's
// goroutine writes it; the runner reads it after the segment.
type meter struct {
	acquire, cycle *hdr.Histogram
	cycles         int64 // acquire and release both succeeded inside the window
	attempts       int64 // single acquire attempts, refused ones included
	refused        int64 // attempts refused because the lock was held (retried)
	errs           int64 // unknown outcomes and failed releases
	firstErr       error
}

func newMeter() *meter { return &meter{acquire: newHist(), cycle: newHist()} }

func (m *meter) reset() {
	m.acquire.Reset()
	m.cycle.Reset()
	m.cycles, m.attempts, m.refused, m.errs, m.firstErr = 0, 0, 0, 0, nil
}

// done records a completed cycle: acquired is how long the blocking acquire
// took (retries included), total the whole cycle up to the release reply.
func (m *meter) done(acquired, total time.Duration) {
	m.cycles++
	record(m.acquire, acquired)
	record(m.cycle, total)
}

func (m *meter) fail(err error) {
	m.errs++
	if m.firstErr == nil {
		m.firstErr = err
	}
}

// segment is one timed stretch of one design's clients. Cycles that end
// after the deadline are not counted; stop wakes every waiting client.
type segment struct {
	deadline time.Time
	stop     chan struct{}
}

var errStopped = errors.New("segment over")

// over reports whether the segment has ended (deadline or interrupt).
func (s *segment) over(now time.Time) bool {
	select {
	case <-s.stop:
		return true
	default:
		return !now.Before(s.deadline)
	}
}

// segmentClock is the clock lock.Blocking waits on: the system clock, except
// that a retry wait ends as soon as the segment does, so that no client
// sleeps past it.
type segmentClock struct{ s *segment }

func (segmentClock) Now() time.Time { return time.Now() }

func (c segmentClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.s.stop:
		return errStopped
	}
}

// worker is one client: it cycles the lock until the segment is over.
type worker interface {
	run(ctx context.Context, s *segment, m *meter)
	close()
}

// runSegment runs every worker for d with meters[i] as worker i's tally.
// All workers are started before the clock does. It returns ctx's error
// when interrupted; the workers have stopped either way.
func runSegment(ctx context.Context, workers []worker, meters []*meter, d time.Duration) error {
	s := &segment{stop: make(chan struct{})}
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			w.run(ctx, s, meters[i])
		}()
	}
	s.deadline = time.Now().Add(d) // published to the workers by close(gate)
	close(gate)
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	close(s.stop)
	wg.Wait()
	return ctx.Err()
}

// holdFor waits inside the critical section. The hold is not cut short at
// the deadline: a cycle is acquire, hold, release, always released.
func holdFor(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}
