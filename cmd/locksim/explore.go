package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/outflag"
	"github.com/locksim/locksim/internal/progress"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

type exploreFlags struct {
	algos     []string
	kinds     []string
	runs      int
	forDur    time.Duration
	timeout   time.Duration
	clients   int
	nodes     int
	ttl       time.Duration
	duration  time.Duration
	hold      time.Duration
	maxFaults int
	seed      uint64
	shard     string
	shards    int
	confirm   string
	out       string // the directory written, from outFlags
	outFlags  outflag.Flags
	asJSON    bool
	workers   int
	noShrink  bool
	exhaust   bool
	unguided  bool
	against   string
	strict    bool
}

func exploreCmd() *cobra.Command {
	var f exploreFlags
	cmd := &cobra.Command{
		Use:   "explore --algos NAME[,NAME...]",
		Short: "Generate random fault schedules, keep the violations and shrink each to a small scenario",
		Long: `Run random fault schedules of a design in virtual time, keep the runs whose
verdict is unsafe, deadlock or unknown, grouped by signature (the failed
check and the fault kinds active at its witness), shrink the most promising
run of each (the fewest faults) to a small scenario whose own run still
fails the same check (a run in virtual time replays exactly), and group
the signatures by shrunk cause.
Each shrunk scenario is written as YAML with its expect (locksim run replays
it) and run once more for a normal run directory; --confirm redis (the
default when redis-server is on PATH) replays it 10 times on redis-server in
real time. stdout has one line per cause; summary.md the causes, then every
signature.

Budget: --for alone is the whole wall time, split between the search,
shrinking and confirmation, and writing (the split is printed on stderr);
--for with --timeout bounds the search by --for and the whole by --timeout;
--runs alone has no time bound. What the budget leaves unshrunk or
unconfirmed is recorded as such. Process designs (redis-py, node-redlock,
process:CMD) run in real time only and are refused. A design with a
reference (its Like, or --against NAME) has every violating schedule run on
the reference too: what the reference also fails is a known weakness of the
family, kept as found. Random draws are
steered toward the (point, fault kind) pairs earlier batches of runs did
not reach (--unguided: not); summary.md shows the pairs reached as a grid.
--exhaustive runs every single-fault schedule instead (each kind, target,
point, visit 1-3 and size, once up to renaming clients and a multi-node
design's nodes), then pairs while --runs or --for lasts, and states the
bound: no violation under any single fault, or how many break the design.
--shard i/n runs the
schedules j with j mod n == i (--shard auto: i and n from a Kubernetes
Indexed Job, GitLab CI's parallel: or a Slurm array; docs/scale.md);
'locksim explore merge DIR...' merges the shards' results. Exit codes: 0 nothing found (with a reference: nothing the reference does
not share; --strict: nothing at all), 1 violations found, 2 bad
input, 3 locksim failed or was interrupted (what was found so far is
written).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfgs, err := f.configs(cmd)
			if err != nil {
				return usageErr(err)
			}
			return f.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cfgs)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.algos, "algos", nil, "designs to explore, comma-separated; see 'locksim algos'")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "fault kinds to draw from (default: every kind the design can meet)")
	fl.IntVar(&f.runs, "runs", 0, "schedules to run, over all shards (default 500, unless --for)")
	fl.DurationVar(&f.forDur, "for", 0, "wall time, e.g. 5m: alone, the whole command's (search, shrinking, confirmation, writing); with --timeout, the search's")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound the whole command (search, shrinking, confirmation, writing) in wall time")
	run := sim.Defaults()
	fl.IntVar(&f.clients, "clients", run.Clients, "clients per schedule")
	fl.IntVar(&f.nodes, "nodes", explore.DefaultNodes, "Redis masters per schedule (single-master designs get one)")
	fl.DurationVar(&f.ttl, "ttl", run.Options.TTL, "lock TTL")
	fl.DurationVar(&f.duration, "duration", run.Duration, "simulated length of each run")
	fl.DurationVar(&f.hold, "hold", run.Hold, "time inside the critical section")
	fl.IntVar(&f.maxFaults, "max-faults", 4, "most faults in one schedule")
	fl.Uint64Var(&f.seed, "seed", 0, "base seed: schedule j is drawn from (seed, j)")
	registerShardFlags(fl, &f.shard, &f.shards, "schedules (those j with j mod n == i)")
	fl.StringVar(&f.confirm, "confirm", "", "replay each shrunk violation on redis-server in real time: redis or none (default: redis when redis-server is on PATH)")
	f.outFlags.Register(fl, "explore", "<UTC stamp>-s<seed>[-shard<i>of<n>]/")
	fl.BoolVar(&f.asJSON, "json", false, "print the result as JSON on stdout (one object; an array for several designs)")
	fl.IntVar(&f.workers, "parallel", 0, "runs at once (default GOMAXPROCS)")
	fl.BoolVar(&f.noShrink, "no-shrink", false, "keep the violations as found")
	fl.BoolVar(&f.exhaust, "exhaustive", false, "run every single-fault schedule (each kind, target, point, visit 1-3, size), then pairs while --runs or --for lasts; states the bound it reached")
	fl.BoolVar(&f.unguided, "unguided", false, "draw schedule j from (seed, j) alone, not steered toward the (point, kind) pairs not yet reached")
	fl.StringVar(&f.against, "against", "", "reference design each violating schedule is run on too; violations it shares are known weaknesses of the family (default: the design's Like; none: no reference)")
	fl.BoolVar(&f.strict, "strict", false, "exit 1 on every violation, also those the reference shares")
	cmd.AddCommand(exploreMergeCmd())
	return cmd
}

// configs checks the flags and makes one explore.Config per design.
func (f *exploreFlags) configs(cmd *cobra.Command) ([]explore.Config, error) {
	if len(f.algos) == 0 {
		return nil, errors.New("--algos: give the designs to explore (see 'locksim algos')")
	}
	for _, a := range f.algos {
		if _, err := lock.Lookup(a); err != nil {
			return nil, fmt.Errorf("--algos: %w", err)
		}
	}
	changed := cmd.Flags().Changed
	if changed("runs") && changed("for") {
		return nil, errors.New("--runs and --for: give one (a number of schedules or a wall-time bound)")
	}
	if changed("runs") && f.runs < 1 {
		return nil, fmt.Errorf("--runs %d: at least 1", f.runs)
	}
	if changed("for") && f.forDur <= 0 {
		return nil, fmt.Errorf("--for %v: must be positive", f.forDur)
	}
	if changed("timeout") && f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: must be positive", f.timeout)
	}
	if changed("timeout") && changed("for") && f.timeout < f.forDur {
		return nil, fmt.Errorf("--timeout %v: shorter than --for %v (--for bounds the search, --timeout the whole command)", f.timeout, f.forDur)
	}
	if changed("parallel") && f.workers < 1 {
		return nil, fmt.Errorf("--parallel %d: at least 1", f.workers)
	}
	sh, err := resolveShard(cmd, f.shard, f.shards)
	if err != nil {
		return nil, err
	}
	shard, shards := sh.Index, sh.Count
	confirm := f.confirm
	if confirm == "" {
		confirm = explore.ConfirmNone
		if _, err := exec.LookPath("redis-server"); err == nil {
			confirm = explore.ConfirmRedis
		}
	}
	if confirm == explore.ConfirmRedis && changed("confirm") {
		if _, err := exec.LookPath("redis-server"); err != nil {
			return nil, errors.New("--confirm redis: redis-server is not on PATH (apt-get install redis-server), or give --confirm none")
		}
	}
	name := fmt.Sprintf("%s-s%d", artifact.Stamp(time.Now()), f.seed)
	if shards > 1 {
		name += fmt.Sprintf("-shard%dof%d", shard, shards)
	}
	if f.out, err = f.outFlags.Resolve("explore", name); err != nil {
		return nil, err
	}
	// The wall time is the command's: several designs share it evenly.
	search, whole := f.forDur, f.timeout
	if whole == 0 {
		search, whole = 0, f.forDur // --for alone: the whole, split by explore.Config.Plan
	}
	n := time.Duration(len(f.algos))
	search, whole = search/n, whole/n
	var out []explore.Config
	for _, a := range f.algos {
		cfg, err := explore.Config{
			Algorithm: a, Kinds: vocab.KindsOf(f.kinds), Runs: f.runs, For: search, Timeout: whole,
			Clients: f.clients, Nodes: f.nodes, TTL: f.ttl, Duration: f.duration, Hold: f.hold,
			MaxFaults: f.maxFaults, Seed: f.seed, Shard: shard, Shards: shards,
			Confirm: confirm, Workers: f.workers, NoShrink: f.noShrink, Exhaustive: f.exhaust, Unguided: f.unguided,
			Against: f.against, Strict: f.strict,
			Out: filepath.Join(f.out, a),
		}.Resolve()
		if err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), explore.BadInput.Error()+": "))
		}
		out = append(out, cfg)
	}
	return out, nil
}

func (f *exploreFlags) run(ctx context.Context, stdout, stderr io.Writer, cfgs []explore.Config) error {
	// The collector runs at 400% for every command (program in main.go):
	// explore's runs allocate much and briefly (miniredis makes a Lua
	// state per script call), and collecting less often halves the CPU
	// of a run (BenchmarkExploreRuns).
	var reps []*explore.Report
	found, causes := 0, 0
	for _, cfg := range cfgs {
		bar := progress.New(stderr)
		cfg.Progress = func(p explore.Progress) {
			total := p.Total
			if p.Phase != "explore" {
				total = p.Runs
			} else if total == 0 {
				total = -1 // bounded by time: a spinner
			}
			desc := fmt.Sprintf("%s %s: %.0f runs/min, %d found (%d distinct)", cfg.Algorithm, p.Phase, p.RunsPerMin, p.Found, p.Distinct)
			bar.Update(p.Runs, total, desc, p.Line)
		}
		fmt.Fprintf(stderr, "exploring %s: %s, seed %d, shard %d/%d, confirm %s, into %s\n",
			cfg.Algorithm, budget(cfg, time.Now()), cfg.Seed, cfg.Shard, cfg.Shards, cfg.Confirm, cfg.Out)
		rep, err := explore.Explore(ctx, cfg)
		bar.Finish()
		if rep != nil {
			reps = append(reps, rep)
			found += len(rep.Failing())
			causes += len(rep.Causes)
			if !f.asJSON {
				printReport(stdout, rep)
			}
		}
		if err != nil {
			if f.asJSON {
				_ = printJSON(stdout, reps)
			}
			switch {
			case ctx.Err() != nil:
				if rep == nil || rep.Written == "" {
					return harnessErr(errors.New("explore interrupted; nothing was written"))
				}
				return harnessErr(fmt.Errorf("explore interrupted; what was found so far is in %s", rep.Written))
			case errors.Is(err, explore.BadInput):
				return usageErr(err)
			case errors.Is(err, sim.ErrConfig):
				return usageErr(err)
			}
			return harnessErr(err)
		}
	}
	if f.asJSON {
		if err := printJSON(stdout, reps); err != nil {
			return harnessErr(err)
		}
	}
	if found > 0 {
		return &exitError{exitMismatch, fmt.Errorf("explore found %d %s of %d distinct %s (see %s)",
			causes, pluralNoun(causes, "cause"), found, pluralNoun(found, "violation"), f.out)}
	}
	return nil
}

// budget says how cfg spends its wall time from start on: the split of
// its Timeout (explore.Config.Plan) with the clock time each phase ends,
// the ETA.
func budget(cfg explore.Config, start time.Time) string {
	if cfg.Exhaustive {
		if cfg.Runs == 0 && cfg.For == 0 && cfg.Timeout == 0 {
			return "exhaustive (every single-fault schedule), no time bound"
		}
		return "exhaustive (" + sweepBudget(cfg) + "), " + plannedBudget(cfg, start)
	}
	return plannedBudget(cfg, start)
}

// plannedBudget is budget's split of the wall time.
func plannedBudget(cfg explore.Config, start time.Time) string {
	p := cfg.Plan()
	if p.Total == 0 {
		if cfg.For > 0 {
			return "search for " + cfg.For.String() + " (no bound on shrinking and confirmation)"
		}
		return fmt.Sprintf("%d runs (no time bound)", cfg.Runs)
	}
	at := func(d time.Duration) string { return start.Add(d).UTC().Format("15:04:05") }
	runs := ""
	if cfg.Runs > 0 {
		runs = fmt.Sprintf("%d runs or ", cfg.Runs)
	}
	confirm := ""
	if p.Finish > p.Shrink {
		confirm = fmt.Sprintf(", confirm %v (until %s)", p.Finish-p.Shrink, at(p.Finish))
	}
	return fmt.Sprintf("%v in all: search %s%v (until %s), shrink %v (until %s)%s, replay and write %v; done by %s UTC",
		p.Total, runs, p.Search, at(p.Search), p.Shrink-p.Search, at(p.Shrink), confirm, p.Total-p.Finish, at(p.Total))
}

func sweepBudget(cfg explore.Config) string {
	switch {
	case cfg.For > 0:
		return "singles, then pairs for " + cfg.For.String()
	case cfg.Runs > 0:
		return fmt.Sprintf("singles, then pairs up to %d runs", cfg.Runs)
	}
	return "every single-fault schedule"
}

// printReport prints r in a few lines, with its summary's path only when
// the summary was written: one line per cause, then what the causes cover
// and what is left without a cause.
func printReport(w io.Writer, r *explore.Report) {
	fmt.Fprintf(w, "%s: %d runs (%d not played), %.0f runs/min, %d distinct %s, %d %s", r.Algorithm, r.Runs, r.NotPlayed, r.RunsPerMin,
		len(r.Violations), pluralNoun(len(r.Violations), "violation"), len(r.Causes), pluralNoun(len(r.Causes), "cause"))
	if r.Written != "" {
		fmt.Fprintf(w, "; summary %s", filepath.Join(r.Written, explore.FileSummary))
	}
	if r.Interrupted {
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprintln(w)
	if r.Sweep != nil {
		fmt.Fprintln(w, "  "+r.Sweep.Statement)
	}
	if d := r.DifferentialLine(); d != "" {
		fmt.Fprintln(w, "  "+d)
	}
	for _, line := range r.Lines() {
		fmt.Fprintln(w, "  "+line)
	}
}

// printJSON prints one report as an object, several as an array.
func printJSON(w io.Writer, reps []*explore.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if len(reps) == 1 {
		return enc.Encode(reps[0])
	}
	if reps == nil {
		reps = []*explore.Report{}
	}
	return enc.Encode(reps)
}

func exploreMergeCmd() *cobra.Command {
	var outFlags outflag.Flags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Merge the results of explorations (shards) into one summary",
		Long: `Read the explore.json of each DIR (an exploration's directory, or one of its
designs' subdirectories) and merge them per design: runs add up, violations
with one signature are one (of shards, the one the unsharded exploration
would have shrunk; of whole explorations, the best reproduced), each
shard's finds and figures kept, the causes grouped again. Shards of
another locksim build or configuration are refused naming the field, and
missing shards are named ("shard 3/8 missing"): nothing is written for
fewer. The merged explore.json and summary.md go to
OUT/explore/<UTC stamp>-merged/ (or --out-dir). Exit codes: 0 nothing
found, 1 violations found, 2 bad input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var dirs []string
			for _, d := range args {
				ds, err := reportDirs(d)
				if err != nil {
					return usageErr(err)
				}
				dirs = append(dirs, ds...)
			}
			reps, err := explore.MergeDirs(dirs)
			if err != nil {
				return usageErr(err)
			}
			out, err := outFlags.Resolve("explore", artifact.Stamp(time.Now())+"-merged")
			if err != nil {
				return usageErr(err)
			}
			found := 0
			for _, r := range reps {
				dir := filepath.Join(out, r.Algorithm)
				if err := r.Write(dir); err != nil {
					return harnessErr(err)
				}
				found += len(r.Failing())
				if !asJSON {
					printReport(cmd.OutOrStdout(), r)
				}
			}
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), reps); err != nil {
					return harnessErr(err)
				}
			}
			if found > 0 {
				return &exitError{exitMismatch, fmt.Errorf("%d distinct violations in the merged results (see %s)", found, out)}
			}
			return nil
		},
	}
	outFlags.Register(cmd.Flags(), "explore", "<UTC stamp>-merged/")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged result as JSON on stdout")
	return cmd
}

// reportDirs finds the explorations under d: d itself when it holds an
// explore.json, else its subdirectories that do.
func reportDirs(d string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(d, explore.FileReport)); err == nil {
		return []string{d}, nil
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", d, err)
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(d, e.Name(), explore.FileReport)); e.IsDir() && err == nil {
			out = append(out, filepath.Join(d, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("merge %s: no %s there or in its subdirectories: not an exploration's directory", d, explore.FileReport)
	}
	return out, nil
}
