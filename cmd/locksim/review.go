package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/dups"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/outflag"
	"github.com/locksim/locksim/internal/progress"
	"github.com/locksim/locksim/internal/review"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// defaultReviewAlgos stand for the families a design review compares:
// SETNX with GETSET, SET NX PX, Redlock, and a fenced lock.
var defaultReviewAlgos = []string{"setnx-getset", "setpx", "redlock", "fenced"}

// The review's bench sweep: the cells the page's cost table reads, each
// design at 1, 16 and 64 clients on its own keys, multi-node designs on
// reviewNodes nodes, and raw at every size measured.
const reviewNodes = 5

var reviewClients = []int{1, 16, 64}

// errReviewTimeout is the cause of a context whose --timeout ran out.
var errReviewTimeout = errors.New("review timeout")

// incompleteFile marks a review directory whose stages did not all finish.
const incompleteFile = "INCOMPLETE.txt"

type reviewFlags struct {
	algos       []string
	runs        int
	out         outflag.Flags
	timeout     time.Duration
	explore     time.Duration
	exhaustive  bool
	benchDur    time.Duration
	benchRounds int
	server      string
}

func reviewCmd() *cobra.Command {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Run the catalogue matrix and a lockbench sweep for some designs and write the design-review page",
		Long: `The design review in one command: for the designs of --algos it runs the
built-in catalogue in virtual time (--runs runs a pair), a lockbench sweep of
those designs beside the raw Redis limit measured in the same rounds (1, 16
and 64 clients, one key per client, multi-node designs and raw's majority
fan-out on 5 nodes), optionally an exploration of random fault schedules per
design (--explore DUR) and a sweep of every single-fault schedule per design
(--exhaustive, whose bound the page states), and writes the page: a design x fault-family grid,
the cost as ratios to raw with their round spread, a sentence per design,
then the matrix, each failure's witness and timeline, and the bench.
Everything goes to one directory, OUT/review/<UTC stamp>/ under the results
root --out (or exactly --out-dir), built under a hidden name and renamed
into place when complete; the page is index.html in it, with its Markdown
twin index.md.
--timeout bounds the whole command: each stage gets what remains. When it
runs out, or on Ctrl-C, what finished is kept in DIR-incomplete with an
INCOMPLETE.txt saying what is missing, and the exit code is 3.
Exit codes: 0 done, 2 bad input, 3 locksim failed, was interrupted or ran
out of time.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd); err != nil {
				return usageErr(err)
			}
			return f.run(cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.algos, "algos", defaultReviewAlgos, "designs to review, comma-separated (the list replaces the default); see 'locksim algos'")
	fl.IntVar(&f.runs, "runs", 3, "matrix runs per (scenario, design) pair, each with its own seed")
	f.out.Register(fl, "review", "<UTC stamp>/")
	fl.DurationVar(&f.timeout, "timeout", 15*time.Minute, "bound on the whole command; each stage gets what remains")
	fl.DurationVar(&f.explore, "explore", 0, "explore random fault schedules of each design for this long (wall time, e.g. 30s; default: no exploration)")
	fl.BoolVar(&f.exhaustive, "exhaustive", false, "sweep every single-fault schedule of each design (locksim explore --exhaustive) and state the bound on the page")
	fl.DurationVar(&f.benchDur, "bench-duration", 4800*time.Millisecond, "measured time of one bench configuration, split over --bench-rounds")
	registerServer(fl, &f.server)
	fl.IntVar(&f.benchRounds, "bench-rounds", 6, "interleaved rounds per bench cell (at least 3, so that each ratio has a spread)")
	return cmd
}

// check validates the flags; each error names the flag at fault.
func (f *reviewFlags) check(cmd *cobra.Command) error {
	if len(f.algos) == 0 {
		return errors.New("--algos: give at least one design (see 'locksim algos')")
	}
	for _, a := range f.algos {
		if _, err := lock.Lookup(a); err != nil {
			return fmt.Errorf("--algos: %w", err)
		}
	}
	if dup, ok := dups.First(f.algos); ok {
		return fmt.Errorf("--algos: %q given twice", dup)
	}
	switch {
	case f.runs < 1:
		return fmt.Errorf("--runs %d: must be at least 1", f.runs)
	case f.timeout <= 0:
		return fmt.Errorf("--timeout %v: must be positive", f.timeout)
	case cmd.Flags().Changed("explore") && f.explore <= 0:
		return fmt.Errorf("--explore %v: must be positive", f.explore)
	case f.benchRounds < bench.MinRepeats:
		return fmt.Errorf("--bench-rounds %d: at least %d, so that every ratio has a spread", f.benchRounds, bench.MinRepeats)
	case f.benchDur < 10*time.Millisecond*time.Duration(f.benchRounds):
		return fmt.Errorf("--bench-duration %v: at least 10ms per round (%d rounds)", f.benchDur, f.benchRounds)
	}
	if err := checkReviewServer(f.server); err != nil {
		return err
	}
	// Checked again, with the review's own stamp, when it starts.
	_, err := f.out.Resolve("review", artifact.Stamp(time.Now()))
	return err
}

// benchConfig is the sweep the page's cost table reads.
func (f *reviewFlags) benchConfig() (bench.Config, string) {
	algos := append(slices.Clone(f.algos), bench.Raw)
	nodes := []int{1}
	for _, a := range f.algos {
		if i, err := lock.Lookup(a); err == nil && i.MultiNode {
			nodes = append(nodes, reviewNodes)
			break
		}
	}
	cfg := bench.Config{
		Backend: sim.BackendRedis, Algorithms: algos, Clients: reviewClients, Nodes: nodes,
		Contention: []bench.Contention{bench.KeyPerClient}, Duration: f.benchDur, Rounds: f.benchRounds,
		Warmup: max(f.benchDur/10, 20*time.Millisecond), Server: sim.Server(f.server),
	}
	note := ""
	if _, err := exec.LookPath("redis-server"); err != nil && cfg.Server == sim.ServerRedis {
		cfg.Backend = sim.BackendMiniredis
		note = "redis-server is not on PATH: the bench runs on miniredis, whose numbers show the harness, not Redis (apt-get install redis-server)"
	}
	return cfg, note
}

// reviewProgress is one display across the stages: matrix runs, bench
// rounds and explorations add up to one total.
type reviewProgress struct {
	bar                  *progress.Bar
	matrixTotal, benchN  int
	exploreN, doneBefore int
	total                int
}

func (p *reviewProgress) matrix(ev matrix.Progress) {
	if p.total == 0 {
		p.matrixTotal = ev.Total
		p.total = ev.Total + p.benchN + p.exploreN
	}
	line := ""
	if ev.Done > 0 {
		line = fmt.Sprintf("matrix: %s %s %s", ev.Scenario, ev.Algorithm, ev.Verdict)
	}
	p.bar.Update(ev.Done, p.total, "matrix", line)
}

func (p *reviewProgress) bench(ev bench.Progress) {
	if ev.Result != nil {
		return
	}
	line := "bench: " + ev.Step
	p.bar.Update(p.matrixTotal+ev.Done, p.total, "bench", line)
}

func (p *reviewProgress) explored(n int, algo string) {
	p.bar.Update(p.matrixTotal+p.benchN+n, p.total, "explore", "explore: "+algo+" done")
}

func (f *reviewFlags) run(cmd *cobra.Command) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	began := time.Now()
	parent := cmd.Context()
	ctx, cancel := context.WithTimeoutCause(parent, f.timeout, errReviewTimeout)
	defer cancel()

	final, err := f.out.Resolve("review", artifact.Stamp(began))
	if err != nil {
		return usageErr(err)
	}
	dir, err := artifact.NewDir(filepath.Dir(final), filepath.Base(final))
	if err != nil {
		return harnessErr(err)
	}
	tmp := dir.Path()

	bcfg, benchNote := f.benchConfig()
	if benchNote != "" {
		fmt.Fprintln(stderr, "locksim review:", benchNote)
	}
	configs, est := bcfg.Size()
	prog := &reviewProgress{bar: progress.New(stderr), benchN: configs * bcfg.Rounds}
	if f.explore > 0 {
		prog.exploreN = len(f.algos)
	}
	if f.exhaustive {
		prog.exploreN += len(f.algos)
	}
	fmt.Fprintf(stderr, "locksim review: %s; the catalogue %d run(s) a pair, a bench sweep of %d configurations (about %s)%s%s; within %v\n",
		strings.Join(f.algos, ", "), f.runs, configs, est.Round(time.Second), exploreText(f.explore, len(f.algos)), sweepText(f.exhaustive), f.timeout)

	var missing []string
	// Stage 1: the catalogue matrix, in virtual time.
	m, merr := matrix.Run(ctx, matrix.Config{Algorithms: f.algos, Runs: f.runs, Out: tmp, Progress: prog.matrix, Server: f.server})
	switch {
	case merr != nil && m.Dir == "" && ctx.Err() == nil && scenarios.IsBadInput(merr):
		prog.bar.Finish()
		dir.Discard()
		return usageErr(merr)
	case merr != nil && m.Dir == "":
		missing = append(missing, "the matrix: "+oneLineErr(stopped(ctx, merr)))
	case merr != nil && m.Incomplete:
		missing = append(missing, "the matrix: "+oneLineErr(stopped(ctx, merr))+" (the pairs that finished are on the page)")
	}
	// Stage 2: the bench sweep, the designs beside raw in the same rounds.
	var rep *bench.Report
	if ctx.Err() == nil {
		bcfg.Progress = prog.bench
		var berr error
		rep, berr = bench.Run(ctx, bcfg)
		if berr != nil {
			rep = nil
			missing = append(missing, "the bench sweep: "+oneLineErr(stopped(ctx, berr)))
		} else {
			rep.Command = "locksim review --algos " + strings.Join(f.algos, ",")
			if benchNote != "" {
				rep.Notes = append(rep.Notes, benchNote)
			}
			if err := rep.Write(filepath.Join(tmp, "lockbench", artifact.Stamp(rep.Started))); err != nil {
				rep = nil
				missing = append(missing, "the bench sweep: write: "+oneLineErr(err))
			}
		}
	} else {
		missing = append(missing, "the bench sweep: not started, "+oneLineErr(stopped(ctx, ctx.Err())))
	}
	// Stage 3: exploration, when asked.
	var explored []string
	if f.explore > 0 {
		for i, a := range f.algos {
			if ctx.Err() != nil {
				missing = append(missing, "the exploration of "+a+": not started, "+oneLineErr(stopped(ctx, ctx.Err())))
				continue
			}
			line, err := exploreOne(ctx, a, f.explore, filepath.Join(tmp, "explore", a))
			explored = append(explored, line)
			if err != nil {
				missing = append(missing, "the exploration of "+a+": "+oneLineErr(stopped(ctx, err)))
			}
			prog.explored(i+1, a)
		}
	}
	// Stage 4: the bounded sweep, when asked.
	var swept []string
	if f.exhaustive {
		for i, a := range f.algos {
			if ctx.Err() != nil {
				missing = append(missing, "the sweep of "+a+": not started, "+oneLineErr(stopped(ctx, ctx.Err())))
				continue
			}
			line, err := sweepOne(ctx, a, filepath.Join(tmp, "sweep", a))
			swept = append(swept, line)
			if err != nil {
				missing = append(missing, "the sweep of "+a+": "+oneLineErr(stopped(ctx, err)))
			}
			prog.explored(len(explored)+i+1, a)
		}
	}
	prog.bar.Finish()

	// The stages' results are in tmp; it becomes final (or, with something
	// missing, final-incomplete) before the page is written into it, so
	// the page's paths are the published ones, and a directory without
	// index.html is a review whose page was never written.
	if len(missing) > 0 {
		final += "-incomplete"
		if err := os.WriteFile(filepath.Join(tmp, incompleteFile),
			[]byte("This review did not finish; missing:\n- "+strings.Join(missing, "\n- ")+"\n"), 0o644); err != nil {
			return harnessErr(err)
		}
	}
	if err := dir.Publish(final, true); err != nil {
		return harnessErr(fmt.Errorf("publish %s: %w (the results are kept in %s)", final, err, tmp))
	}
	page := filepath.Join(final, "index.html")
	if m.Dir != "" {
		mdir := filepath.Join(final, strings.TrimPrefix(m.Dir, tmp+string(filepath.Separator)))
		choice := review.BenchChoice{Why: "No lockbench run: the review's bench sweep did not finish (" + strings.Join(missing, "; ") + ")."}
		if rep != nil {
			choice = review.BenchChoice{Dir: filepath.Join(final, "lockbench", artifact.Stamp(rep.Started)), Why: "measured for this review", OwnSweep: true}
		}
		r, err := review.Load(mdir, choice)
		if err != nil {
			return harnessErr(err)
		}
		r.Explored, r.Swept = explored, swept
		r.Incomplete = append(r.Incomplete, missing...)
		if err := r.Write(page); err != nil {
			return harnessErr(err)
		}
	}
	wall := time.Since(began).Round(100 * time.Millisecond)
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "review incomplete after %s: kept in %s (%s)\n", wall, final, incompleteFile)
		why := "failed"
		switch {
		case errors.Is(context.Cause(ctx), errReviewTimeout) && parent.Err() == nil:
			why = fmt.Sprintf("ran out of --timeout %v", f.timeout)
		case parent.Err() != nil:
			why = "interrupted"
		}
		return harnessErr(fmt.Errorf("review %s: missing %s", why, strings.Join(missing, "; ")))
	}
	fmt.Fprintf(stdout, "%s\n%s\nreview of %s written in %s: matrix %s; bench %s\n", page, review.MarkdownPath(page),
		strings.Join(f.algos, ", "), wall, m.Headline(), filepath.Join(final, "lockbench"))
	if merr != nil {
		// The page is written, but some pairs could not be run.
		return harnessErr(merr)
	}
	return nil
}

// stopped names a timeout or an interrupt for what it is.
func stopped(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errReviewTimeout) {
		return errors.New("the --timeout ran out")
	}
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	return err
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

func exploreText(d time.Duration, n int) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(", exploration %v a design (%v)", d, d*time.Duration(n))
}

// exploreOne explores one design for budget (wall time), without shrinking
// or replaying on redis-server, which have no bound of their own, and
// writes the result to out; it returns the page's line about it.
func exploreOne(ctx context.Context, algo string, budget time.Duration, out string) (string, error) {
	cfg := explore.Config{Algorithm: algo, For: budget, Confirm: explore.ConfirmNone, NoShrink: true, Out: out}
	rep, err := explore.Explore(ctx, cfg)
	if rep == nil {
		return fmt.Sprintf("%s: exploration failed: %s", algo, oneLineErr(err)), err
	}
	var sigs []string
	for _, v := range rep.Violations {
		sigs = append(sigs, v.Signature)
	}
	line := fmt.Sprintf("%s: %d random fault schedules (%d not played) in %v, %d distinct violation(s)", algo, rep.Runs, rep.NotPlayed, budget, len(rep.Violations))
	if len(sigs) > 0 {
		line += ": " + strings.Join(sigs, "; ")
	}
	return line + " (explore/" + algo + "/" + explore.FileSummary + ")", err
}

func sweepText(on bool) string {
	if !on {
		return ""
	}
	return ", every single-fault schedule of each design"
}

// sweepOne sweeps every single-fault schedule of algo, without shrinking
// or replaying on redis-server, and writes the result to out; it returns
// the sweep's statement, for the page.
func sweepOne(ctx context.Context, algo, out string) (string, error) {
	cfg := explore.Config{Algorithm: algo, Exhaustive: true, Confirm: explore.ConfirmNone, NoShrink: true, Out: out}
	rep, err := explore.Explore(ctx, cfg)
	if rep == nil || rep.Sweep == nil {
		return fmt.Sprintf("%s: sweep failed: %s", algo, oneLineErr(err)), err
	}
	return rep.Sweep.Statement + " (sweep/" + algo + "/" + explore.FileSummary + ")", err
}
