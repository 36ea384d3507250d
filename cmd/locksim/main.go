// Command locksim runs Redis lock designs through failure scenarios and tells,
// with evidence, whether mutual exclusion held.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	_ "github.com/locksim/locksim/adapter" // process designs: redis-py, node-redlock, process:CMD
	"github.com/locksim/locksim/sim/node"

	"github.com/locksim/locksim/internal/exitcode"
	"github.com/locksim/locksim/vtime"
)

// Exit codes: the table both mains share (internal/exitcode).
const (
	exitOK       = exitcode.OK       // every verdict as expected
	exitMismatch = exitcode.Mismatch // a verdict differs from its expectation
	exitUsage    = exitcode.Usage    // bad input or usage
	exitHarness  = exitcode.Failed   // locksim itself failed, or the run was interrupted
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
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(algosCmd(), listCmd(), runCmd(), matrixCmd(), reportCmd(), checkCmd(), doctorCmd(), exploreCmd(), reviewCmd())
	return root
}

// main runs the program under a virtual-time host (package vtime), so that
// runs on miniredis can go in virtual time.
func main() { vtime.Main(program) }

func program(host vtime.Host) int {
	if os.Getenv("GOGC") == "" {
		// A run in virtual time is all CPU, and a good part of it is the
		// collector's: locksim's heap is small (a run's history and
		// buffers), so trading some memory for fewer collections is
		// worth it (about a tenth less CPU on a matrix).
		debug.SetGCPercent(400)
	}
	// go-redis logs every failed dial; a killed node is a planned event here.
	redis.SetLogger(quietLogger{})
	ctx, stop := watchSignals(vtime.NewContext(context.Background(), host), os.Stderr, os.Exit)
	root := newRoot()
	var prof cpuProfile
	prof.register(root)
	err := root.ExecuteContext(ctx)
	prof.stop()
	stop()
	_ = node.CloseAll() // a backstop: nothing started here outlives the process
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(os.Stderr, "locksim:", err)
	return exitCodeOf(err)
}
