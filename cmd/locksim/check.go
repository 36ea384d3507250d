package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/sim"
)

func checkCmd() *cobra.Command {
	var asJSON bool
	var timeout, checkTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Re-check the saved history of a run directory offline",
		Long: `Read DIR/history.jsonl, check it again and compare with DIR/verdict.json.
Whether the run played its scenario (DIR/scenario.yaml: every fault it
needs acted, every requirement happened) is read from the history too.
The run directory is not changed. --timeout bounds the whole check,
--check-timeout the checker itself (as on run and matrix). Exit 0 when the
verdict is as the run expected, 1 when it differs or the run did not play
its scenario, 2 when DIR is not a run directory or holds more than this
machine can check (more clients, operations or bytes than fit its memory
budget: half of what is available), 3 when the check exceeded --timeout
or was interrupted. A history may name far more clients than a run may
have (a million when 2 GB are available): checking needs no goroutine
per client.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			if err := checkTimeouts(cmd.Flags().Changed, timeout, checkTimeout); err != nil {
				return usageErr(err)
			}
			if os.Getenv("GOGC") == "" {
				// The check's heap is the history, as large as a run's
				// memory budget allows: the collector's default pace
				// keeps it near its size, where main's pace for runs
				// would let it grow to several times that.
				debug.SetGCPercent(100)
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				// What ReadDir admits fits the memory budget; near it
				// the collector works harder rather than let garbage
				// take the machine's memory.
				debug.SetMemoryLimit(sim.HistoryLimit().Bytes)
			}
			dir := args[0]
			saved, err := run.ReadDir(cmd.Context(), dir)
			if err != nil {
				return runDirErr(err)
			}
			// --timeout bounds the whole check: the checker gets what is
			// left of it when that is less than its own --check-timeout.
			bound := checkTimeout
			if timeout > 0 {
				left := timeout - time.Since(start)
				if left <= 0 {
					return harnessErr(fmt.Errorf("check exceeded its timeout of %v reading %s", timeout, dir))
				}
				bound = min(bound, left)
			}
			rc, err := saved.Check(cmd.Context(), bound)
			if err != nil {
				return harnessErr(fmt.Errorf("check of %s interrupted: %w", dir, err))
			}
			r := rc.Result
			if timeout > 0 && time.Since(start) >= timeout {
				return harnessErr(fmt.Errorf("check exceeded its timeout of %v (verdict so far: %s)", timeout, r.Verdict))
			}
			if err := saved.Judge(&rc); err != nil {
				return runDirErr(err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"dir": dir, "verdict": r.Verdict, "checks": rc.Checks,
					"saved_verdict": saved.File.Verdict, "expected": saved.File.Expected, "as_expected": rc.AsExpected, "sweep_agrees": r.SweepAgrees,
					"unplayed": rc.Unplayed, "warnings": rc.Warnings})
			} else {
				fmt.Fprintf(out, "%s: %s (saved: %s, expected: %q, ops: %d, checked in %v)\n",
					dir, r.Verdict, saved.File.Verdict, saved.File.Expected, r.Ops, r.Elapsed.Round(1e6))
				if len(rc.Unplayed) > 0 {
					fmt.Fprintf(out, "  NOT PLAYED: %s\n", strings.Join(rc.Unplayed, "; "))
				}
				for _, c := range r.Checks {
					fmt.Fprintf(out, "  %-9s %-8s %s\n", c.Name, c.Verdict, c.Detail)
				}
				for _, w := range aggregateWarnings(rc.Warnings) {
					fmt.Fprintf(out, "  ⚠ %s\n", w)
				}
			}
			if err := saved.Mismatch(rc); err != nil {
				return &exitError{exitMismatch, err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON on stdout")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "bound on the whole check; past it the command fails with exit 3 (default: none beyond --check-timeout)")
	cmd.Flags().DurationVar(&checkTimeout, "check-timeout", 10*time.Second, "bound on the checker; running out gives verdict unknown")
	return cmd
}

// runDirErr is a run directory that could not be checked again: a usage
// error when the directory is at fault (run.BadDirError), else locksim's.
func runDirErr(err error) error {
	var bad *run.BadDirError
	if errors.As(err, &bad) {
		return usageErr(err)
	}
	return harnessErr(err)
}
