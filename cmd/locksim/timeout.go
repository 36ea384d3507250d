package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errTimeout is the cause of a command context whose --timeout ran out.
//
// --timeout has one meaning on every long command (run, matrix, review,
// check, lockbench): the bound on the whole command's wall time. When it
// runs out, the work under way stops, what finished is written and what
// was cut short is marked incomplete, and the exit code is 3.
var errTimeout = errors.New("--timeout ran out")

// withTimeout is ctx bounded by --timeout when one was given (d > 0).
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, errTimeout)
}

// timedOut reports whether ctx ended because its --timeout ran out (and
// not because the user interrupted the command).
func timedOut(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), errTimeout)
}

// timeoutErr is the one-line error of a command whose --timeout ran out.
func timeoutErr(d time.Duration, what string) error {
	return harnessErr(fmt.Errorf("--timeout %v ran out: %s", d, what))
}
