// Command lockbench measures the throughput and latency of every lock design
// side by side with the peers (redsync, redislock) and the raw Redis limit,
// and draws the charts. The measuring is package bench's; this command turns
// flags into a bench.Config, runs it and writes the files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/exitcode"
	"github.com/locksim/locksim/sim"
)

// Exit codes: the table locksim uses too (internal/exitcode). lockbench's
// only expectation is a --baseline: 1 when a ratio fell by more than its
// noise band; an interrupt or a --timeout that ran out is 3, as on locksim.
const (
	exitOK          = exitcode.OK
	exitDiffers     = exitcode.Mismatch // --baseline: a ratio fell by more than its noise band
	exitUsage       = exitcode.Usage    // bad input or usage
	exitHarness     = exitcode.Failed   // the bench itself failed (nodes did not start, files not written)
	exitInterrupted = exitcode.Failed   // Ctrl-C or SIGTERM (nothing written), or --timeout (the cells that finished, marked incomplete)
)

// errTimeout is the cause of a context whose --timeout ran out.
var errTimeout = errors.New("--timeout ran out")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f flags
	var ci ciFlags
	var cfg bench.Config
	var out string
	var w waitFlags
	var wcfg bench.WaitConfig
	ran := false
	cmd := &cobra.Command{
		Use:   "lockbench",
		Short: "Throughput and latency of every lock design, beside redsync, redislock and the raw Redis limit",
		Long: "lockbench sweeps lock designs x clients x nodes x contention on redis-server nodes it starts and stops,\n" +
			"measures lock cycles per second and acquire/cycle latency percentiles, and writes bench.csv, bench.json,\n" +
			"summary.md and charts (SVG and PNG) to OUT/lockbench/<UTC stamp>/ under the results root --out (or exactly --out-dir).\n" +
			"--under SCENARIO runs the load while a scenario's faults play. Progress and notes go to stderr, results to stdout.",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if w.given() {
				if ci.json || ci.baseline != "" || ci.save != "" {
					return fmt.Errorf("--wait: not with --json, --baseline or --save-baseline (they compare the design sweep's ratios)")
				}
				wcfg, out, err = w.config(&f, time.Now())
				ran = err == nil
				return err
			}
			cfg, out, err = f.config(time.Now())
			if err != nil {
				return err
			}
			if ci.baseline != "" && f.under != "" {
				return fmt.Errorf("--baseline: not with --under (a run under a scenario has no ratios to compare)")
			}
			if ci.save != "" && f.under != "" {
				return fmt.Errorf("--save-baseline: not with --under (a run under a scenario has no ratios to keep)")
			}
			if err := ci.check(); err != nil {
				return err
			}
			ran = true
			return nil
		},
	}
	f.register(cmd.Flags())
	w.register(cmd.Flags())
	ci.register(cmd.Flags())
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c.Flags(), err) })
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(stderr, "lockbench:", oneLine(err))
		return exitUsage
	}
	if !ran { // --help
		return exitOK
	}
	reclaimPartialDirs(stderr, out)
	if w.given() {
		return measureWait(ctx, wcfg, out, f.timeout, "lockbench "+strings.Join(args, " "), stdout, stderr)
	}
	if ci.json { // stdout carries the JSON alone
		ci.stdout, stdout = stdout, stderr
	}
	return measure(ctx, cfg, out, f.timeout, "lockbench "+strings.Join(args, " "), &ci, stdout, stderr)
}

// measure runs cfg and writes the files to out, all within timeout (0:
// twice the estimate and a minute).
func measure(ctx context.Context, cfg bench.Config, out string, timeout time.Duration, command string, ci *ciFlags, stdout, stderr io.Writer) int {
	if usesMiniredis(cfg) {
		fmt.Fprintln(stderr, "lockbench: warning:", bench.MiniredisWarning)
	}
	n, est := cfg.Size()
	if timeout <= 0 {
		timeout = 2*est + time.Minute
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	fmt.Fprintf(stderr, "lockbench: %d configurations, about %s of measuring; results to %s\n", n, est.Round(time.Second), out)
	prog := newProgress(stderr)
	cfg.Progress = prog.update
	stopProfile, err := ci.profile()
	if err != nil {
		fmt.Fprintln(stderr, "lockbench:", oneLine(err))
		return exitHarness
	}
	rep, err := bench.Run(ctx, cfg)
	prog.finish()
	if perr := stopProfile(); perr != nil {
		fmt.Fprintln(stderr, "lockbench:", oneLine(perr))
	}
	if rep != nil && err != nil && parent.Err() == nil && errors.Is(context.Cause(ctx), errTimeout) {
		return writeIncomplete(rep, out+"-incomplete", command, timeout, stdout, stderr)
	}
	if code, failed := measureFailed(parent, ctx, err, timeout, stderr); failed {
		return code
	}
	rep.Command = command
	if err := rep.Write(out); err != nil {
		fmt.Fprintln(stderr, "lockbench: write results:", oneLine(err))
		return exitHarness
	}
	for _, c := range rep.Comparisons {
		fmt.Fprintf(stdout, "  %s, %d clients, %s: throughput x%.3f (rounds %.2f–%.2f, %s), cycle p99 x%.2f\n",
			c.Title, c.Clients, c.Contention, c.Throughput, c.RoundMin, c.RoundMax, c.Noise, c.CycleP99)
	}
	fmt.Fprintf(stdout, "lockbench: wrote %s in %.1f s (see summary.md)\n", out, rep.WallS)
	return ci.report(rep, out, stderr)
}

// writeIncomplete writes the cells a sweep finished before its --timeout
// ran out to dir (out-incomplete, so that it is never taken for a whole
// run; bench.json says incomplete, and review passes it over), and
// returns exit 3.
func writeIncomplete(rep *bench.Report, dir, command string, timeout time.Duration, stdout, stderr io.Writer) int {
	rep.Command = command
	if err := rep.Write(dir); err != nil {
		fmt.Fprintf(stderr, "lockbench: --timeout %v ran out, and the cells that finished could not be written: %s\n", timeout, oneLine(err))
		return exitHarness
	}
	fmt.Fprintf(stdout, "lockbench: wrote %s, incomplete (see summary.md)\n", dir)
	fmt.Fprintf(stderr, "lockbench: --timeout %v ran out: %s; what finished is in %s\n", timeout, rep.Incomplete, dir)
	return exitInterrupted
}

func usesMiniredis(cfg bench.Config) bool {
	if len(cfg.Under) == 0 {
		return cfg.Backend == sim.BackendMiniredis
	}
	for _, u := range cfg.Under {
		if u.Cluster.Backend == sim.BackendMiniredis || u.Cluster.Backend == "" {
			return true
		}
	}
	return false
}

// oneLine keeps an error on one line, whatever a library put in it.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// measureFailed says how a measuring that returned err ends: interrupted
// (Ctrl-C, or --timeout ran out: ctx is the measuring's own, parent the
// caller's), bad input, or a harness failure; failed is false when it did
// not fail.
func measureFailed(parent, ctx context.Context, err error, timeout time.Duration, stderr io.Writer) (code int, failed bool) {
	switch {
	case parent.Err() == nil && err != nil && errors.Is(context.Cause(ctx), errTimeout):
		fmt.Fprintf(stderr, "lockbench: --timeout %v ran out before the measuring was done: nodes stopped, nothing written\n", timeout)
		return exitInterrupted, true
	case parent.Err() != nil:
		fmt.Fprintln(stderr, "lockbench: interrupted: nodes stopped, nothing written")
		return exitInterrupted, true
	case errors.Is(err, bench.ErrConfig):
		fmt.Fprintln(stderr, "lockbench:", oneLine(err))
		return exitUsage, true
	case err != nil:
		fmt.Fprintln(stderr, "lockbench:", oneLine(err))
		return exitHarness, true
	}
	return exitOK, false
}
