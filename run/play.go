package run

import (
	"context"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim"
)

// Play runs spec on the simulator and writes nothing: every run of the
// pipeline starts here, and a caller that reads the history itself
// (lockbench --under's latency figures) stops here.
func Play(ctx context.Context, spec sim.Spec) (*sim.Result, error) {
	return sim.Run(ctx, spec)
}

// Quiet plays spec and checks its history (bounded by checkTimeout),
// writing nothing and drawing nothing: the many runs of a search that
// nobody opens, whose speed is the search's. A run that failed to play
// comes back with its error and no check.
func Quiet(ctx context.Context, spec sim.Spec, checkTimeout time.Duration) (*sim.Result, checker.Result, error) {
	res, err := Play(ctx, spec)
	if err != nil {
		return res, checker.Result{}, err
	}
	return res, check(res, checkTimeout, false), nil
}

// check is checker.Check of res's history; verbose keeps what check.html
// draws.
func check(res *sim.Result, timeout time.Duration, verbose bool) checker.Result {
	return checker.Check(res.History, checkConfig(res, timeout, verbose))
}

// checkConfig is how res's history is checked.
func checkConfig(res *sim.Result, timeout time.Duration, verbose bool) checker.Config {
	return checker.Config{Fencing: res.Config.Fencing(), Timeout: timeout, Verbose: verbose}
}
