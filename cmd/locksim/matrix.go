package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/progress"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
)

type matrixFlags struct {
	algos        []string
	scenarios    []string
	runs         int
	where        backendFlags
	out          string
	parallel     int
	asJSON       bool
	seed         uint64
	timeout      time.Duration
	checkTimeout time.Duration
	shard        string
	shards       int
}

func matrixCmd() *cobra.Command {
	var f matrixFlags
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Run every scenario x algorithm pair and tabulate the verdicts against their expectations",
		Long: `Run every applicable scenario x algorithm pair --runs times (run i with
seed + i: --seed when given, else the scenario's own seed), several at once,
and write DIR/matrix/<UTC stamp>/ with
matrix.md, matrix.json, matrix.html and every run's report under runs/; then
point DIR/matrix/latest at it. Pairs a scenario expects as skip, or that need
what the backend lacks (on --addrs servers: process control), are shown as
skip with the reason, never as passed. --timeout bounds the whole matrix's
wall time: when it runs out the matrix is written with the pairs that
finished, marked incomplete (exit 3); --check-timeout bounds the checker in
each run, as on run.
--shard i/n runs the k-th planned (scenario, design, run) triple when
k mod n == i (--shard auto: from the engine's environment, docs/scale.md);
'locksim matrix merge DIR...' joins the shards into one matrix.
Exit codes: 0 every pair met its expectation in every run, 1 some did not,
2 bad input, 3 locksim itself failed (the matrix is still written when it got
that far).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(cmd)
			if err != nil {
				return usageErr(err)
			}
			return f.run(cmd, cfg)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.algos, "algos", nil, "designs to run, comma-separated (default: every design a scenario applies to)")
	fl.StringSliceVar(&f.scenarios, "scenarios", nil, "scenarios to run, built-in names or YAML files, comma-separated (default: the built-in catalogue)")
	fl.IntVar(&f.runs, "runs", 1, "runs per pair, each with its own seed")
	f.where.register(fl, "each scenario's own")
	fl.StringVar(&f.out, "out", "results", "results root; the matrix goes to OUT/matrix/<stamp>/")
	fl.IntVar(&f.parallel, "parallel", 0, fmt.Sprintf("runs at once (default: %d when every run goes in virtual time, else %d; with --addrs: 1, since a run holds those servers alone)", matrix.DefaultParallelVirtual(), matrix.DefaultParallel()))
	fl.BoolVar(&f.asJSON, "json", false, "print matrix.json (with its directory) as JSON on stdout")
	fl.Uint64Var(&f.seed, "seed", 0, "base seed for every random choice: run i of a pair uses seed + i (default: each scenario's own seed)")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound on the whole matrix's wall time; past it the pairs that finished are written, marked incomplete, exit 3 (default: none; each run is bounded by its duration + 1m)")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 10*time.Second, "bound on the checker in each run; running out gives verdict unknown")
	registerShardFlags(fl, &f.shard, &f.shards, "(scenario, design, run) triples (the k-th in plan order when k mod n == i)")
	cmd.AddCommand(matrixMergeCmd())
	return cmd
}

// config checks the flags and loads the scenarios; every error names the
// value at fault in one line.
func (f *matrixFlags) config(cmd *cobra.Command) (matrix.Config, error) {
	cfg := matrix.Config{Runs: f.runs, Backend: f.where.backend, Addrs: f.where.addrs, Toxiproxy: f.where.toxiproxy, RealTime: f.where.realTime,
		Out: f.out, Parallel: f.parallel, CheckTimeout: f.checkTimeout}
	changed := cmd.Flags().Changed
	if changed("seed") {
		cfg.Seed = &f.seed
	}
	if err := f.where.check(changed); err != nil {
		return cfg, err
	}
	sh, err := resolveShard(cmd, f.shard, f.shards)
	if err != nil {
		return cfg, err
	}
	cfg.Shard = sh
	cfg.Server = serverOverride(f.where.server, changed)
	if f.where.external() {
		if changed("parallel") && f.parallel > 1 {
			return cfg, fmt.Errorf("--parallel %d: a run holds the --addrs servers alone (their guard key), so runs go one at a time (leave --parallel out)", f.parallel)
		}
		cfg.Parallel = 1
	}
	if f.runs < 1 {
		return cfg, fmt.Errorf("--runs %d: must be at least 1", f.runs)
	}
	if changed("parallel") && f.parallel < 1 {
		return cfg, fmt.Errorf("--parallel %d: must be at least 1", f.parallel)
	}
	if err := checkTimeouts(changed, f.timeout, f.checkTimeout); err != nil {
		return cfg, err
	}
	if err := report.CheckOutRoot(f.out); err != nil {
		return cfg, fmt.Errorf("--out %q: %w", f.out, err)
	}
	if err := report.CheckOutRoot(matrix.Root(f.out)); err != nil {
		return cfg, fmt.Errorf("--out %q: %s inside it, where the matrices go: %w", f.out, filepath.Base(matrix.Root(f.out)), err)
	}
	for _, a := range f.algos {
		if _, err := lock.Lookup(a); err != nil {
			return cfg, fmt.Errorf("--algos: %w", err)
		}
	}
	cfg.Algorithms = f.algos
	for _, name := range f.scenarios {
		s, err := scenarios.Lookup(name)
		if err != nil {
			return cfg, fmt.Errorf("--scenarios: %w", err)
		}
		cfg.Scenarios = append(cfg.Scenarios, s)
	}
	return cfg, nil
}

func (f *matrixFlags) run(cmd *cobra.Command, cfg matrix.Config) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.where.preflight(cmd.Context()); err != nil {
		return usageErr(err)
	}
	reclaimLeftDirs(stderr)
	reclaimPartialDirs(stderr, cfg.Out)
	if w := f.where.where(); w != "" {
		fmt.Fprintln(stderr, w)
	}
	prog := newMatrixProgress(stderr)
	cfg.Progress = prog.update
	ctx, cancel := withTimeout(cmd.Context(), f.timeout)
	defer cancel()
	m, err := matrix.Run(ctx, cfg)
	prog.finish()
	if err != nil && timedOut(ctx) && m.Dir == "" {
		return timeoutErr(f.timeout, "no pair finished; nothing was written")
	}
	if err != nil && m.Dir == "" {
		if scenarios.IsBadInput(err) {
			return usageErr(err)
		}
		return harnessErr(err)
	}
	if f.asJSON {
		out := struct {
			Dir string `json:"dir"`
			matrix.Matrix
		}{m.Dir, m}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(out); jerr != nil {
			return harnessErr(jerr)
		}
	} else {
		printMatrix(stdout, m)
	}
	if err != nil && timedOut(ctx) {
		return timeoutErr(f.timeout, fmt.Sprintf("the %d pairs that finished are in %s, marked incomplete", m.Totals.Cells, m.Dir))
	}
	if err != nil {
		return harnessErr(err)
	}
	if !m.OK() {
		return &exitError{exitMismatch, fmt.Errorf("%d of %d pairs differ from their expectation (see %s)",
			m.Totals.Differ, m.Totals.Cells, filepath.Join(m.Dir, matrix.FileMD))}
	}
	return nil
}

func printMatrix(w io.Writer, m matrix.Matrix) {
	fmt.Fprintf(w, "%s.\n", m.Headline())
	for _, c := range m.Differing() {
		fmt.Fprintf(w, "  ✗ %s × %s: expected %s; runs: %s\n", c.Scenario, c.Algorithm, c.Expected, c.Tally())
	}
	fmt.Fprintf(w, "wall %s; written to %s (%s, %s, %s)\n",
		(time.Duration(m.WallMS) * time.Millisecond).Round(100*time.Millisecond), m.Dir,
		matrix.FileHTML, matrix.FileMD, matrix.FileJSON)
}

// matrixProgress shows a bar on a terminal and one plain line per finished
// run otherwise (a log, CI, a pipe).
type matrixProgress struct{ bar *progress.Bar }

func newMatrixProgress(w io.Writer) *matrixProgress { return &matrixProgress{progress.New(w)} }

func (p *matrixProgress) update(ev matrix.Progress) {
	if ev.Done == 0 {
		p.bar.Update(0, ev.Total, "starting", "")
		return
	}
	line := fmt.Sprintf("%s %s %s", ev.Scenario, ev.Algorithm, ev.Verdict)
	if ev.Run > 0 && !ev.AsExpected {
		line += " ✗"
	}
	p.bar.Update(ev.Done, ev.Total, line, line)
}

func (p *matrixProgress) finish() { p.bar.Finish() }
