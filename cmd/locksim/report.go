package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/review"
)

func reportCmd() *cobra.Command {
	var matrixDir, benchDir, out string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write a self-contained design-review page (HTML + Markdown) from a matrix and a bench run",
		Long: `Write one self-contained HTML page (images inlined, no external resources)
and its Markdown twin for a design review: the machine and date, the verdict
matrix, each unsafe or deadlocked pair's witness and timeline with its
scenario's doc, and the lockbench charts and tables when a bench run is given.
By default the page describes results/matrix/latest and the newest
results/lockbench/ run if there is one (--bench "" leaves the bench out), and
is written to results/review/<matrix stamp>.html (+ .md); for a matrix in
ROOT/matrix/, ROOT takes the place of results.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root := resultsRoot(matrixDir)
			if !cmd.Flags().Changed("bench") {
				latest, err := review.LatestBench(filepath.Join(root, "lockbench"))
				if err != nil {
					return harnessErr(err)
				}
				benchDir = latest
			}
			r, err := review.Load(matrixDir, benchDir)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usageErr(fmt.Errorf("%w (run 'locksim matrix' first, or give --matrix DIR)", err))
				}
				return usageErr(err)
			}
			if out == "" {
				out = filepath.Join(root, "review", r.Matrix.Stamp()+".html")
			}
			if err := r.Write(out); err != nil {
				return harnessErr(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\n%s\n", out, review.MarkdownPath(out))
			fmt.Fprintf(w, "matrix %s: %s; %d finding(s)", r.Matrix.Dir, r.Matrix.Headline(), len(r.Findings))
			if r.Bench != nil {
				fmt.Fprintf(w, "; bench %s", r.Bench.Dir)
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&matrixDir, "matrix", filepath.Join(matrix.Root("results"), report.LatestLink), "matrix directory")
	fl.StringVar(&benchDir, "bench", "", "lockbench run directory (default: the newest under results/lockbench, if any)")
	fl.StringVar(&out, "out", "", "the HTML file; the Markdown twin goes next to it with .md (default results/review/<matrix stamp>.html)")
	return cmd
}

// resultsRoot is the results root a matrix directory sits in
// (ROOT/matrix/<stamp> or ROOT/matrix/latest), else "results".
func resultsRoot(matrixDir string) string {
	dir := filepath.Clean(matrixDir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if parent := filepath.Dir(dir); filepath.Base(parent) == "matrix" {
		return filepath.Dir(parent)
	}
	return "results"
}
