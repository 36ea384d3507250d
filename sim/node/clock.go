package node

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// nodeClock is a node's own clock: true time scaled by a rate, plus forward
// jumps. It is piecewise linear in true time, so a backend can read it at
// any moment and get a value consistent with every earlier reading.
//
// Elapsed times are measured on the monotonic true clock; start only gives
// the readings a wall-clock face, so a host clock step never leaks in.
type nodeClock struct {
	trueNow func() time.Time // true time; time.Now outside tests

	mu         sync.Mutex
	start      time.Time     // wall face of the clock at creation
	trueStart  time.Time     // true-time reading at creation (monotonic)
	anchorTrue time.Duration // true elapsed at the last rate change or jump
	anchorNode time.Duration // node elapsed at that moment
	rate       float64
}

func newNodeClock(trueNow func() time.Time) *nodeClock {
	if trueNow == nil {
		trueNow = time.Now
	}
	t := trueNow()
	return &nodeClock{
		trueNow:   trueNow,
		start:     t.Round(0), // strip the monotonic part: this is a face, not a measure
		trueStart: t,
		rate:      1,
	}
}

// elapsedLocked returns true and node time elapsed since creation, read at
// one true instant so that they can be compared.
func (c *nodeClock) elapsedLocked() (trueEl, nodeEl time.Duration) {
	trueEl = c.trueNow().Sub(c.trueStart)
	nodeEl = c.anchorNode + time.Duration(float64(trueEl-c.anchorTrue)*c.rate)
	return trueEl, nodeEl
}

// now is the node clock's reading.
func (c *nodeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, nodeEl := c.elapsedLocked()
	return c.start.Add(nodeEl)
}

// lead is how far the node clock has run ahead of true time since creation
// (negative when behind). A backend whose expiry follows the host clock owes
// its keys exactly this much TTL shift.
func (c *nodeClock) lead() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	trueEl, nodeEl := c.elapsedLocked()
	return nodeEl - trueEl
}

// jump moves the clock forward by d.
func (c *nodeClock) jump(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("clock jump %v: backward node clock jumps are not supported (use a rate below 1 to slow expiry)", d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reanchorLocked()
	c.anchorNode += d
	return nil
}

// setRate makes the clock run at r times true time from now on.
func (c *nodeClock) setRate(r float64) error {
	if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return fmt.Errorf("clock rate %v: must be a finite number >= 0", r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reanchorLocked()
	c.rate = r
	return nil
}

// reanchorLocked pins the current reading so that a change applies only
// from now on.
func (c *nodeClock) reanchorLocked() {
	c.anchorTrue, c.anchorNode = c.elapsedLocked()
}
