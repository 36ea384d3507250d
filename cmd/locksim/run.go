package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// runFlags are the scenario fields a user may override on the command line.
type runFlags struct {
	algos        []string
	where        backendFlags
	nodes        int
	clients      int
	ttl          time.Duration
	duration     time.Duration
	hold         time.Duration
	seed         uint64
	out          string
	asJSON       bool
	timeout      time.Duration
	checkTimeout time.Duration
	determinism  int
}

func runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [SCENARIO|FILE]",
		Short: "Run a scenario (built-in name or YAML file) and check mutual exclusion",
		Long: `Run a scenario for each of its algorithms (or --algos), check the history and
write a report under --out. Without a scenario, --algos and the other flags
describe a fault-free run. --addrs runs on Redis servers you run (backend
external: network faults, client faults and timed pause-node only; a run's
keys are its own, under locksim:<run id>:, deleted after it, and while it runs
it holds the guard key locksim:guard, so a second run on those servers refuses
to start); --toxiproxy puts the network's proxies on a toxiproxy server. Exit
codes: 0 every verdict as expected, 1 a verdict differs from its expectation,
2 bad input (also an address that does not answer, or one server given twice),
3 locksim itself failed (also: the servers are held by another run).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.scenario(cmd, args)
			if err != nil {
				return usageErr(err)
			}
			return f.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), s)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.algos, "algos", nil, "designs to run, comma-separated (default: the scenario's); see 'locksim algos'")
	f.where.register(fl, "the scenario's, else miniredis")
	fl.IntVar(&f.nodes, "nodes", 0, "Redis masters")
	fl.IntVar(&f.clients, "clients", 0, "clients contending for the lock")
	fl.DurationVar(&f.ttl, "ttl", 0, "lock TTL, e.g. 500ms")
	fl.DurationVar(&f.duration, "duration", 0, "how long clients cycle, e.g. 3s")
	fl.DurationVar(&f.hold, "hold", 0, "time inside the critical section")
	fl.Uint64Var(&f.seed, "seed", 0, "base seed for every random choice (default: the scenario's own seed)")
	fl.StringVar(&f.out, "out", "results", "results root directory")
	fl.BoolVar(&f.asJSON, "json", false, "print the result as JSON on stdout")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound on the whole command's wall time; past it the run under way stops, kept marked incomplete, exit 3 (default: none; each run is bounded by its duration + 1m)")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 10*time.Second, "bound on the checker in each run; running out gives verdict unknown")
	fl.IntVar(&f.determinism, "determinism", 0, "run each design N times in virtual time and compare the histories byte for byte (exit 1 names the first differing line); writes no report")
	return cmd
}

// scenario loads the named scenario, or makes a fault-free one from flags,
// and applies the flags that override it (scenarios.Overrides).
func (f *runFlags) scenario(cmd *cobra.Command, args []string) (*scenarios.Scenario, error) {
	changed := cmd.Flags().Changed
	if err := f.where.check(changed); err != nil {
		return nil, err
	}
	if err := checkTimeouts(changed, f.timeout, f.checkTimeout); err != nil {
		return nil, err
	}
	var s *scenarios.Scenario
	var err error
	if len(args) == 1 {
		s, err = scenarios.Lookup(args[0])
	} else {
		s, err = scenarios.FaultFree(f.algos)
	}
	if err != nil {
		return nil, err
	}
	o := scenarios.Overrides{Algorithms: f.algos, Addrs: f.where.addrs}
	if changed("backend") && !f.where.external() {
		o.Backend = f.where.backend
	}
	o.Server = serverOverride(f.where.server, changed)
	// A flag overrides only when given: its zero value is not "unset".
	if changed("nodes") {
		o.Nodes = &f.nodes
	}
	if changed("clients") {
		o.Clients = &f.clients
	}
	if changed("ttl") {
		o.TTL = &f.ttl
	}
	if changed("duration") {
		o.Duration = &f.duration
	}
	if changed("hold") {
		o.Hold = &f.hold
	}
	if changed("seed") {
		o.Seed = &f.seed
	}
	if err := s.Override(o); err != nil {
		return nil, err
	}
	return s, nil
}

// checkTimeouts: --timeout and --check-timeout, where given, are positive.
func checkTimeouts(changed func(string) bool, timeout, checkTimeout time.Duration) error {
	if changed("timeout") && timeout <= 0 {
		return fmt.Errorf("--timeout %v: must be positive", timeout)
	}
	if changed("check-timeout") && checkTimeout <= 0 {
		return fmt.Errorf("--check-timeout %v: must be positive", checkTimeout)
	}
	return nil
}

// jsonResult is what --json prints: each run as run.Execute
// reported it.
type jsonResult struct {
	Scenario   string        `json:"scenario"`
	Runs       []run.Outcome `json:"runs"`
	Incomplete bool          `json:"incomplete,omitempty"` // --timeout ran out before every design ran
}

func (f *runFlags) run(ctx context.Context, stdout, stderr io.Writer, s *scenarios.Scenario) error {
	algos := f.algos
	if len(algos) == 0 {
		algos = s.Algorithms()
	}
	if f.determinism != 0 {
		return f.replay(ctx, stdout, stderr, s, algos)
	}
	// A design named on the command line that cannot run on this machine
	// fails the run, saying what is missing; left to the scenario's
	// default, it is only left out.
	for _, a := range f.algos {
		if info, err := lock.Lookup(a); err == nil {
			if m := info.Missing(); m != "" {
				return harnessErr(fmt.Errorf("--algos %s: not available here: %s", a, m))
			}
		}
	}
	opts := f.where.runOptions()
	opts.Out, opts.CheckTimeout = f.out, f.checkTimeout
	// Every design is planned before anything runs, so that what the
	// backend cannot do is one line, not a failure midway.
	plans := map[string]scenarios.Plan{}
	for _, algo := range algos {
		p, err := s.Plan(algo, opts.Servers)
		if err != nil {
			return usageErr(err)
		}
		plans[algo] = p
	}
	if len(f.algos) == 0 {
		// said once the input is known good, so that a refusal is one line
		for _, info := range lock.Algorithms() {
			if m := info.Missing(); m != "" && s.Covers(info.Name) {
				fmt.Fprintf(stderr, "note: %s left out: not available here: %s\n", info.Name, m)
			}
		}
	}
	if err := report.CheckOutRoot(f.out); err != nil {
		return usageErr(fmt.Errorf("--out %q: %w", f.out, err))
	}
	if err := report.CheckOutRoot(filepath.Join(f.out, report.RunsDir)); err != nil {
		return usageErr(fmt.Errorf("--out %q: %s inside it, where the runs go: %w", f.out, report.RunsDir, err))
	}
	if err := report.CheckOutRoot(filepath.Join(f.out, report.RunsDir, s.Name)); err != nil {
		return usageErr(fmt.Errorf("--out %q: %s inside it, where the runs of %s go: %w", f.out, filepath.Join(report.RunsDir, s.Name), s.Name, err))
	}
	if err := f.where.preflight(ctx); err != nil {
		return usageErr(err)
	}
	reclaimLeftDirs(stderr)
	reclaimPartialDirs(stderr, f.out)
	if w := f.where.where(); w != "" {
		fmt.Fprintln(stderr, w)
	}
	ctx, cancel := withTimeout(ctx, f.timeout)
	defer cancel()
	res := jsonResult{Scenario: s.Name}
	mismatches := 0
	for i, algo := range algos {
		fmt.Fprintf(stderr, "[%d/%d] %s with %s ...\n", i+1, len(algos), s.Name, algo)
		if p := plans[algo]; p.Skipped == "" {
			spec, err := p.Config.Resolve()
			if err != nil {
				return usageErr(err)
			}
			for _, w := range spec.Warnings() {
				fmt.Fprintln(stderr, "warning:", w)
			}
		}
		o, err := run.ExecutePlan(ctx, s, plans[algo], opts)
		if err != nil {
			if o.Dir != "" {
				fmt.Fprintf(stderr, "partial run kept in %s (incomplete: not a verdict)\n", o.Dir)
			}
			if timedOut(ctx) {
				if f.asJSON {
					res.Incomplete = true
					_ = printRunJSON(stdout, res)
				}
				return timeoutErr(f.timeout, fmt.Sprintf("%d of %d designs ran; %s was cut short", i, len(algos), algo))
			}
			if scenarios.IsBadInput(err) {
				return usageErr(err)
			}
			return harnessErr(err)
		}
		if !o.AsExpected {
			mismatches++
		}
		res.Runs = append(res.Runs, o)
		if !f.asJSON {
			printOutcome(stdout, o)
		}
	}
	if f.asJSON {
		if err := printRunJSON(stdout, res); err != nil {
			return harnessErr(err)
		}
	}
	if mismatches > 0 {
		return &exitError{exitMismatch, fmt.Errorf("%d of %d verdicts differ from what %s expects", mismatches, len(algos), s.Name)}
	}
	return nil
}

func printRunJSON(w io.Writer, res jsonResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

func printOutcome(w io.Writer, o run.Outcome) {
	if o.Skipped != "" {
		fmt.Fprintf(w, "%-14s skipped: %s\n", o.Algorithm, o.Skipped)
		return
	}
	var checks []string
	for _, name := range vocab.Checks() {
		checks = append(checks, fmt.Sprintf("%s %s", name, o.Checks[name]))
	}
	verdict := strings.ToUpper(string(o.Verdict))
	mark := "as expected"
	switch {
	case len(o.Unplayed) > 0:
		// Whatever the checks said, the run did not test the scenario.
		verdict, mark = "NOT PLAYED", strings.Join(o.Unplayed, "; ")
	case o.Expected == "" && o.AsExpected:
		mark = "nothing expected"
	case o.Expected == "":
		mark = "nothing expected, and not safe"
	case !o.AsExpected:
		mark = "EXPECTED " + o.Expected
	}
	warn := ""
	for i, x := range o.Warnings {
		if i == runLineWarnings && len(o.Warnings) > i+1 {
			warn += fmt.Sprintf("  ⚠ +%d more warnings in summary.md", len(o.Warnings)-i)
			break
		}
		warn += "  ⚠ " + shortWarning(x)
	}
	fmt.Fprintf(w, "%-14s %-8s %s  [%s]%s  %s\n", o.Algorithm, verdict, mark, strings.Join(checks, ", "), warn, o.Dir)
}

// runLineWarnings is how many warnings the one-line result spells out;
// the rest are counted (a dense random nemesis can leave hundreds).
const runLineWarnings = 3

// shortWarning is a warning's first clause, for the one-line result
// (summary.md and verdict.json have it whole); a harness error keeps its
// error.
func shortWarning(s string) string {
	if strings.HasPrefix(s, "harness error") {
		return s
	}
	if i := strings.IndexAny(s, "(:"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// exitCodeOf is for tests: the exit code main would use for err.
func exitCodeOf(err error) int {
	var ee *exitError
	if err == nil {
		return exitOK
	}
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}
