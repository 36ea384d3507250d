package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
)

func matrixMergeCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Join the shards of a matrix (matrix --shard i/n) into one matrix",
		Long: `Read the matrix.json of each DIR, the shards of one matrix (locksim matrix
--shard i/n), and join them into the matrix one process would have made:
every pair's runs in run order, the totals recomputed, each shard's
machine, times and load kept under parts. Shards of different locksim
versions or configurations are refused naming the field, and missing
shards are named ("shard 3/8 missing"): nothing is written for fewer. The
merged matrix.json, matrix.md and matrix.html, with a copy of every run's
directory, go to OUT/matrix/<UTC stamp>/, and OUT/matrix/latest points at
it; 'locksim report' takes it like any matrix.
Exit codes: 0 every pair met its expectation, 1 some did not, 2 bad input
(not the shards of one matrix, or some missing), 3 locksim failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckOutRoot(out); err != nil {
				return usageErr(fmt.Errorf("--out %q: %w", out, err))
			}
			m, err := matrix.ReadShards(args)
			if err != nil {
				return usageErr(err)
			}
			if err := matrix.WriteMerged(&m, out); err != nil {
				return harnessErr(err)
			}
			stdout := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					Dir string `json:"dir"`
					matrix.Matrix
				}{m.Dir, m}); err != nil {
					return harnessErr(err)
				}
			} else {
				printMatrix(stdout, m)
			}
			if m.Incomplete {
				return harnessErr(errors.New("a shard was interrupted: the merged matrix is marked incomplete"))
			}
			if !m.OK() {
				return &exitError{exitMismatch, fmt.Errorf("%d of %d pairs differ from their expectation (see %s)",
					m.Totals.Differ, m.Totals.Cells, filepath.Join(m.Dir, matrix.FileMD))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "results", "results root; the merged matrix goes to OUT/matrix/<stamp>/")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged matrix.json (with its directory) as JSON on stdout")
	return cmd
}
