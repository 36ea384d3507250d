// Command locksim runs Redis lock designs through failure scenarios and tells,
// with evidence, whether mutual exclusion held.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/locksim/locksim/sim"
)

// Exit codes: 0 every verdict as expected, 1 a verdict differs from its
// expectation, 2 bad input or usage, 3 locksim itself failed or the run was
// interrupted.
const (
	exitOK       = 0 // every verdict as expected
	exitMismatch = 1 // a verdict differs from its expectation
	exitUsage    = 2 // bad input or usage
	exitHarness  = 3 // locksim itself failed
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(err error) error   { return &exitError{exitUsage, err} }
func harnessErr(err error) error { return &exitError{exitHarness, err} }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// newRoot builds the command tree; tests drive it directly.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "locksim",
		Short:         "Tells, with evidence, whether a Redis distributed lock is safe",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(algosCmd(), listCmd(), runCmd(), matrixCmd(), reportCmd(), checkCmd(), doctorCmd())
	return root
}

func main() {
	// go-redis logs every failed dial; a killed node is a planned event here.
	redis.SetLogger(quietLogger{})
	ctx, stop := watchSignals(context.Background(), os.Stderr, os.Exit)
	err := newRoot().ExecuteContext(ctx)
	stop()
	_ = sim.CloseAll() // a backstop: nothing started here outlives the process
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "locksim:", err)
	os.Exit(exitCodeOf(err))
}
