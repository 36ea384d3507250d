package explore

import (
	"context"
	"time"
)

// Plan is how an exploration spends its wall time, each figure counted
// from its start. A zero figure is no bound.
type Plan struct {
	// Search: past it no schedule starts.
	Search time.Duration
	// Shrink: past it no shrink or shrink step starts, and the ones under
	// way stop. The same as Finish, unless confirming on redis-server,
	// which gets the second half of the time between Search and Finish.
	Shrink time.Duration
	// Finish: past it no confirmation or strengthening starts, and the
	// ones under way stop; what they left undone is recorded.
	Finish time.Duration
	// Total: the whole exploration. Between Finish and Total the shrunk
	// scenarios are replayed once more and their run directories written;
	// past it only the report files are.
	Total time.Duration
}

// Search shares of the time before the write reserve, when For does not
// set the search's bound itself: confirming on redis-server costs ten
// real-time runs a finding, so the search leaves it more.
const (
	searchShare        = 0.5
	searchShareConfirm = 0.4
)

// writeReserve is the time a Timeout keeps for replaying the shrunk
// scenarios once more and writing their run directories: a tenth of it,
// at least a second and at most ten, and never more than half.
func writeReserve(timeout time.Duration) time.Duration {
	return min(max(timeout/10, time.Second), 10*time.Second, timeout/2)
}

// Plan splits c.Timeout (with defaults filled in): the write reserve last,
// before it shrinking and confirmation, and the search first, For long
// when For is set, else a share of the time before the reserve (all of it
// when nothing is shrunk). Without a Timeout only For bounds anything.
func (c Config) Plan() Plan {
	if c.Timeout <= 0 {
		return Plan{Search: c.For}
	}
	finish := c.Timeout - writeReserve(c.Timeout)
	search := c.For
	switch {
	case search > 0:
		search = min(search, finish)
	case c.NoShrink:
		search = finish
	case c.Confirm == ConfirmRedis:
		search = scaled(finish, searchShareConfirm)
	default:
		search = scaled(finish, searchShare)
	}
	search = search.Round(time.Millisecond)
	shrink := finish
	if c.Confirm == ConfirmRedis && !c.NoShrink {
		shrink = search + (finish-search)/2
	}
	return Plan{Search: search, Shrink: shrink, Finish: finish, Total: c.Timeout}
}

// clock is the time the budget reads.
func (c Config) clock() func() time.Time {
	if c.now != nil {
		return c.now
	}
	return time.Now
}

// budget holds the contexts of an exploration's phases after the search:
// ctx is the caller's (its end is an interruption), shrink ends with the
// plan's Shrink, work with its Finish (confirmation), wrap with its Total
// (the virtual replay and run directory of each finding).
type budget struct {
	ctx, shrink, work, wrap context.Context
	now                     func() time.Time
	shrinkAt, finishAt      time.Time // zero: no bound
	cancel                  func()
}

// newBudget makes the phases' contexts of an exploration that began at
// began under plan. The deadlines are read off now (the plan's clock) and
// set as real-time timeouts, so an injected clock moves them too.
func newBudget(ctx context.Context, plan Plan, began time.Time, now func() time.Time) *budget {
	b := &budget{ctx: ctx, shrink: ctx, work: ctx, wrap: ctx, now: now, cancel: func() {}}
	if plan.Total <= 0 {
		return b
	}
	b.shrinkAt, b.finishAt = began.Add(plan.Shrink), began.Add(plan.Finish)
	var c0, c1, c2 context.CancelFunc
	b.shrink, c0 = context.WithTimeout(ctx, b.shrinkAt.Sub(now()))
	b.work, c1 = context.WithTimeout(ctx, b.finishAt.Sub(now()))
	b.wrap, c2 = context.WithTimeout(ctx, began.Add(plan.Total).Sub(now()))
	b.cancel = func() { c0(); c1(); c2() }
	return b
}

// shrinkOver reports whether the time for shrinking has ended.
func (b *budget) shrinkOver() bool {
	if b.ctx.Err() != nil {
		return false
	}
	return b.shrink.Err() != nil || (!b.shrinkAt.IsZero() && !b.now().Before(b.shrinkAt))
}

// over reports whether the time for confirming has ended
// (the caller's interruption is not the budget's end).
func (b *budget) over() bool {
	if b.ctx.Err() != nil {
		return false
	}
	return b.work.Err() != nil || (!b.finishAt.IsZero() && !b.now().Before(b.finishAt))
}

// wrapOver reports whether the whole budget has ended.
func (b *budget) wrapOver() bool { return b.ctx.Err() == nil && b.wrap.Err() != nil }
