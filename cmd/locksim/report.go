package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/outflag"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/internal/review"
)

func reportCmd() *cobra.Command {
	var matrixDir, benchDir string
	var out outflag.Flags
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
the page; a run under a scenario (--under) is never taken as the sweep.
--bench DIR shows that run (marked partial if it is); --bench "" leaves
the bench out. The page is written to OUT/review/<matrix stamp>/index.html
(+ index.md), as review writes its own; --out is the results root, as on
matrix ('locksim matrix --out res' then 'locksim report --out res' reads
res/matrix/latest and writes res/review/...), by default the root the
matrix sits in; --out-dir names the page's directory exactly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root := out.Root
			if cmd.Flags().Changed("out") {
				// A results root, as matrix's --out.
				if !cmd.Flags().Changed("matrix") {
					matrixDir = filepath.Join(matrix.Root(root), report.LatestLink)
				}
			} else {
				root = resultsRoot(matrixDir)
				out.Root = root
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
			dir, err := out.Resolve("review", r.Matrix.Stamp())
			if err != nil {
				return usageErr(err)
			}
			page := filepath.Join(dir, "index.html")
			if err := r.Write(page); err != nil {
				return harnessErr(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\n%s\n", page, review.MarkdownPath(page))
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
	out.Register(fl, "review", "<matrix stamp>/index.html (default: the root the matrix sits in)")
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
