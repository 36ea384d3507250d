package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/review"
)

func reportCmd() *cobra.Command {
	var matrixDir, benchDir, out, root string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write a self-contained design-review page (HTML + Markdown) from a matrix and a bench run",
		Long: `Write one self-contained HTML page (images inlined, no external resources)
and its Markdown twin for a design review: the machine and date, a design x
fault-family grid (the share of each family's scenarios a design came
through safe), the cost at 1, 16 and 64 clients as ratios to the raw limit
measured in the same rounds (with the bench run's warning when it is
partial), a sentence per design, the verdict matrix, each unsafe or
deadlocked pair's witness and timeline with its scenario's doc, and the
lockbench charts and tables of a bench run. 'locksim review' runs the
matrix and the bench for you and writes this page.
By default the page describes results/matrix/latest and the newest full
lockbench run under results/lockbench/ (lockbench without flags); newer
partial runs (--quick, a narrowed sweep, --under) are passed over, and when
there is no full run the newest partial sweep is shown, marked partial on
the page; a run under a scenario (--under) is never taken as the sweep. --bench DIR shows that run (marked partial if it is); --bench "" leaves
the bench out. The page is written to results/review/<matrix stamp>.html
(+ .md); for a matrix in ROOT/matrix/, ROOT takes the place of results.
--out names the HTML file, or an existing directory taken as the results
root, as on matrix: 'locksim matrix --out res' then 'locksim report --out res'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fi, err := os.Stat(out); out != "" && err == nil && fi.IsDir() {
				// A results root, as matrix's --out.
				if !cmd.Flags().Changed("matrix") {
					matrixDir = filepath.Join(matrix.Root(out), report.LatestLink)
				}
				root = out
				out = ""
			}
			if root == "" {
				root = resultsRoot(matrixDir)
			}
			choice := review.GivenBench(benchDir)
			if !cmd.Flags().Changed("bench") {
				var err error
				if choice, err = review.NewestFullBench(filepath.Join(root, "lockbench")); err != nil {
					return harnessErr(err)
				}
			}
			r, err := review.Load(matrixDir, choice)
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
			if b := r.Bench; b != nil {
				fmt.Fprintf(w, "; bench %s", b.Dir)
				if len(b.Partial) > 0 {
					fmt.Fprintf(w, " (partial: %s)", strings.Join(b.Partial, "; "))
				}
			} else {
				fmt.Fprintf(w, "; %s", r.NoBench)
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&matrixDir, "matrix", filepath.Join(matrix.Root("results"), report.LatestLink), "matrix directory")
	fl.StringVar(&benchDir, "bench", "", `lockbench run directory (default: the newest full run under results/lockbench, else the newest partial one, marked so; "" for none)`)
	fl.StringVar(&out, "out", "", "the HTML file, its Markdown twin next to it with .md (default results/review/<matrix stamp>.html); an existing directory is a results root, as on matrix")
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
