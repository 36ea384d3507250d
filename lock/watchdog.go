package lock

import (
	"context"
	"errors"

	"github.com/locksim/locksim/vocab"
)

// StartWatchdog is the watchdog of the built-in designs for a design
// outside this package: it renews l every TTL/3 of o.Clock through renew
// (which must call l.Renew on success and return ErrNotHeld when the lock
// is gone), passing o.Hook before and after each renewal so that a paused
// client's watchdog pauses with it. Release must call l.StopWatchdog first.
func StartWatchdog(o Options, l *Lease, renew func(context.Context) error) {
	startWatchdog(o.Defaulted(), l, renew, variant{})
}

// startWatchdog renews l every TTL/3 (client clock) until the lease is
// released or renewal is refused. Each renewal first passes the hook, so a
// paused client's watchdog pauses with it and a crashed one's stops: a
// process pause stops the whole process, as Redisson's watchdog would be.
// renew must update the lease's window on success and return ErrNotHeld when
// the lock is gone.
//
// A design's variant with renewalGivesUp also stops after a renewal whose
// outcome is unknown (a timeout, a reset connection), as Redisson's
// watchdog did before it rescheduled on failure (redisson/redisson #775):
// the lease then runs out at its last renewal's TTL while its holder
// works on.
func startWatchdog(o Options, l *Lease, renew func(context.Context) error, v variant) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if o.Clock.Sleep(ctx, o.TTL/3) != nil {
				return
			}
			if o.Hook(ctx, Event{Point: vocab.PointWatchdogRenew, Key: l.Key, Lease: l}) != nil {
				return
			}
			err := renew(ctx)
			switch {
			case err == nil:
				if o.Hook(ctx, Event{Point: vocab.PointWatchdogRenewed, Key: l.Key, Lease: l}) != nil {
					return
				}
			case errors.Is(err, ErrNotHeld):
				_ = o.Hook(ctx, Event{Point: vocab.PointWatchdogLost, Key: l.Key, Lease: l})
				return
			case ctx.Err() != nil:
				return
			case v.renewalGivesUp:
				return
			}
			// Any other error is an unknown outcome: try again next period.
		}
	}()
	l.mu.Lock()
	l.stopWatchdog = func() { cancel(); <-done }
	l.mu.Unlock()
}
