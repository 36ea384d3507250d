package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/locksim/locksim/lock"
)

// probe is the liveness check: after every fault healed, a fresh client must
// get each key within TTL + slack (plus the tolerance of designs that trust
// client timestamps). A key it cannot get is a deadlock.
func probe(ctx context.Context, w *World) {
	cfg := w.cfg
	info, _ := lock.Lookup(cfg.Algorithm)
	bound := cfg.Options.TTL + cfg.ProbeSlack
	if info.ClientClock {
		bound += cfg.Options.Tolerance
	}
	conns := w.cluster.NewClients()
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	o := cfg.Options
	clk := sleeperClock{newSleeper(w.sched, "probe")}
	o.Clock, o.Hook, o.Watchdog = clk, nil, false
	// The probe is the harness, not the design under test: on a loaded
	// machine a command may take longer than the scenario's node timeout,
	// and the probe must not turn slow replies into "no answer".
	o.NodeTimeout = max(o.NodeTimeout, bound/4)
	// Tokens that the run's seed fixes, as the clients' are: a history
	// replays byte for byte.
	n := 0
	o.Owner, o.Tokens = "probe", func() string { n++; return fmt.Sprintf("probe-%d", n) }
	l, err := lock.New(cfg.Algorithm, conns, o)
	if err != nil {
		w.rec.Add(Op{Kind: KindProbe, Client: NoClient, Outcome: Unknown, Call: w.rec.Now(), Return: w.rec.Now(), Err: err.Error()})
		return
	}
	if p, ok := l.(lock.ProcessControl); ok {
		defer p.Close() // the probe's own child
	}
	for k := 0; k < cfg.Keys; k++ {
		key := cfg.LockKey(k)
		pctx, cancel := context.WithTimeout(ctx, bound)
		op := Op{Kind: KindProbe, Client: NoClient, Key: key, Call: w.rec.Now()}
		var unknowns, refusals int
		var lastUnknown error
		// A command that times out (a node still waking from a pause, a
		// connection re-dialing after a restart) is not a refusal: the probe
		// retries it like one until its bound, and only then says deadlock.
		acquire := func(ctx context.Context, key string) (*lock.Lease, error) {
			lease, err := l.Acquire(ctx, key)
			if errors.Is(err, lock.ErrNotAcquired) {
				refusals++
			}
			switch {
			case err == nil || errors.Is(err, lock.ErrNotAcquired):
			case crossSlot(err):
				// The cluster refuses the design's command outright, and
				// will on every attempt: a definite no.
				refusals++
				return nil, fmt.Errorf("%w (%v)", lock.ErrNotAcquired, err)
			case ctx.Err() != nil:
				// The bound ran out during the attempt (in virtual time an
				// attempt can start at the very instant of the deadline): no
				// answer was due any more, so this says nothing either way.
				return nil, fmt.Errorf("%w (attempt cut by the probe's bound: %v)", lock.ErrNotAcquired, err)
			default:
				unknowns++
				lastUnknown = err
				return nil, fmt.Errorf("%w (outcome unknown: %v)", lock.ErrNotAcquired, err)
			}
			return lease, err
		}
		// The probe's one bound is its deadline: the scenario's retry
		// budget is the design's clients' business, and a probe that gave
		// up after it would call a lock that frees at its TTL stuck.
		retry := cfg.Options.Retry
		retry.MaxTries = 0
		lease, err := lock.Blocking(pctx, acquire, key, retry, clk, nil)
		op.Return = w.rec.Now()
		cancel()
		if err != nil && unknowns > 0 {
			err = fmt.Errorf("%w; %d attempt(s) had unknown outcomes, the last: %v", err, unknowns, lastUnknown)
		}
		switch {
		case err == nil:
			op.Outcome, op.Token = OK, lease.Token
			_ = l.Release(ctx, lease)
		case refusals == 0:
			// Never a definite answer: the probe cannot tell a deadlock from
			// a node that does not answer, and does not guess.
			op.Outcome, op.Err = Unknown, fmt.Sprintf("no definite answer within %v: %v", bound, err)
		case errors.Is(err, lock.ErrNotAcquired):
			op.Outcome, op.Err = Fail, fmt.Sprintf("not acquired within %v: %v", bound, err)
		default:
			op.Outcome, op.Err = Unknown, err.Error()
		}
		w.rec.Add(op)
	}
}
