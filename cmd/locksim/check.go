package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/scenarios"
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
its scenario, 2 when DIR is not a run directory or holds more than a run
makes (more clients than a run may have, more operations or bytes than
this machine's memory budget for a run), 3 when the check exceeded
--timeout or was interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			if err := checkTimeouts(cmd.Flags().Changed, timeout, checkTimeout); err != nil {
				return usageErr(err)
			}
			dir := args[0]
			saved, h, err := readRunDir(cmd.Context(), dir)
			if err != nil {
				return err
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
			r, warnings, err := checkInterruptible(cmd.Context(), h, checker.Config{Fencing: saved.Config.Fencing, Timeout: bound}, saved.Config.Clients)
			if err != nil {
				return harnessErr(fmt.Errorf("check of %s interrupted: %w", dir, err))
			}
			if timeout > 0 && time.Since(start) >= timeout {
				return harnessErr(fmt.Errorf("check exceeded its timeout of %v (verdict so far: %s)", timeout, r.Verdict))
			}
			checks := scenarios.CheckVerdicts(r)
			// Whether the run played its scenario is read from the history,
			// against the scenario the run saved (which faults it needs).
			s, err := scenarios.LoadFile(filepath.Join(dir, report.FileScenario))
			if err != nil {
				return usageErr(fmt.Errorf("%s: %w", dir, err))
			}
			unplayed := s.Unplayed(saved.Algorithm, h)
			ok := len(unplayed) == 0 && scenarios.SavedExpectation(saved).Meets(r.Verdict, checks)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"dir": dir, "verdict": r.Verdict, "checks": checks,
					"saved_verdict": saved.Verdict, "expected": saved.Expected, "as_expected": ok, "sweep_agrees": r.SweepAgrees,
					"unplayed": unplayed, "warnings": warnings})
			} else {
				fmt.Fprintf(out, "%s: %s (saved: %s, expected: %q, ops: %d, checked in %v)\n",
					dir, r.Verdict, saved.Verdict, saved.Expected, r.Ops, r.Elapsed.Round(1e6))
				if len(unplayed) > 0 {
					fmt.Fprintf(out, "  NOT PLAYED: %s\n", strings.Join(unplayed, "; "))
				}
				for _, c := range r.Checks {
					fmt.Fprintf(out, "  %-9s %-8s %s\n", c.Name, c.Verdict, c.Detail)
				}
				for _, w := range aggregateWarnings(warnings) {
					fmt.Fprintf(out, "  ⚠ %s\n", w)
				}
			}
			if r.Verdict != saved.Verdict {
				return &exitError{exitMismatch, fmt.Errorf("re-check gives %s, the run saved %s", r.Verdict, saved.Verdict)}
			}
			if len(unplayed) > 0 {
				return &exitError{exitMismatch, fmt.Errorf("the run did not play %s: %s", s.Name, strings.Join(unplayed, "; "))}
			}
			if !ok {
				return &exitError{exitMismatch, fmt.Errorf("verdict %s is not what the run expected (%s)", r.Verdict, saved.Expected)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON on stdout")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "bound on the whole check; past it the command fails with exit 3 (default: none beyond --check-timeout)")
	cmd.Flags().DurationVar(&checkTimeout, "check-timeout", 10*time.Second, "bound on the checker; running out gives verdict unknown")
	return cmd
}
