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

// errCutByRelease is the outcome of a renewal that the lease's release
// stopped before its answer came.
var errCutByRelease = errors.New("the release stopped the watchdog before the renewal's answer")

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
			sent := o.Clock.Now()
			err := renew(ctx)
			switch {
			case err == nil:
				if o.Hook(ctx, Event{Point: vocab.PointWatchdogRenewed, Key: l.Key, Lease: l}) != nil {
					return
				}
				continue
			case errors.Is(err, ErrNotHeld):
				_ = o.Hook(ctx, Event{Point: vocab.PointWatchdogLost, Key: l.Key, Lease: l})
				return
			}
			// Any other error is an unknown outcome: the renewal may have
			// landed. No point reports it, so it is told as a renewal
			// (Options.Renewed) and kept in the history.
			if ctx.Err() != nil {
				o.Renewed(Renewal{Lease: l, Sent: sent, Err: errCutByRelease})
				return
			}
			o.Renewed(Renewal{Lease: l, Sent: sent, Err: err})
			if v.renewalGivesUp {
				return
			}
			// Try again next period.
		}
	}()
	l.mu.Lock()
	l.stopWatchdog = func() { cancel(); <-done }
	l.mu.Unlock()
}
