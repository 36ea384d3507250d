package node

import (
	"math"
	"sync"
	"testing"
	"time"
)

// fakeTrue is a hand-driven true clock.
type fakeTrue struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeTrue) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeTrue) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestNodeClock(t *testing.T) {
	tr := &fakeTrue{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newNodeClock(tr.now)
	start := c.now()
	check := func(wantEl, wantLead time.Duration) {
		t.Helper()
		if got := c.now().Sub(start); got != wantEl {
			t.Errorf("node elapsed = %v, want %v", got, wantEl)
		}
		if got := c.lead(); got != wantLead {
			t.Errorf("lead = %v, want %v", got, wantLead)
		}
	}

	tr.advance(time.Second)
	check(time.Second, 0)

	if err := c.setRate(2); err != nil {
		t.Fatal(err)
	}
	tr.advance(time.Second) // runs 2s at rate 2
	check(3*time.Second, time.Second)

	if err := c.jump(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	check(8*time.Second, 6*time.Second)

	if err := c.setRate(0.5); err != nil {
		t.Fatal(err)
	}
	tr.advance(2 * time.Second) // 1s of node time in 2s
	check(9*time.Second, 5*time.Second)

	if err := c.setRate(0); err != nil {
		t.Fatal(err)
	}
	tr.advance(time.Hour)
	check(9*time.Second, 9*time.Second-time.Hour-4*time.Second)
}

func TestNodeClockRejects(t *testing.T) {
	c := newNodeClock(nil)
	if err := c.jump(-time.Second); err == nil {
		t.Error("backward jump accepted")
	}
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := c.setRate(r); err == nil {
			t.Errorf("rate %v accepted", r)
		}
	}
}
