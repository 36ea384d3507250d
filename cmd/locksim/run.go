package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
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
}

func runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [SCENARIO|FILE]",
		Short: "Run a scenario (built-in name or YAML file) and check mutual exclusion",
		Long: `Run a scenario for each of its algorithms (or --algo), check the history and
write a report under --out. Without a scenario, --algo and the other flags
describe a fault-free run. --addrs runs on Redis servers you run (backend
external: network faults, client faults and timed pause-node only; locksim
deletes their locksim:* keys before each run); --toxiproxy puts the network's
proxies on a toxiproxy server. Exit codes: 0 every verdict as expected, 1 a
verdict differs from its expectation, 2 bad input (also an address that does
not answer), 3 locksim itself failed.`,
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
	fl.StringSliceVar(&f.algos, "algo", nil, "the same as --algos")
	f.where.register(fl, "the scenario's, else miniredis")
	fl.IntVar(&f.nodes, "nodes", 0, "Redis masters")
	fl.IntVar(&f.clients, "clients", 0, "clients contending for the lock")
	fl.DurationVar(&f.ttl, "ttl", 0, "lock TTL, e.g. 500ms")
	fl.DurationVar(&f.duration, "duration", 0, "how long clients cycle, e.g. 3s")
	fl.DurationVar(&f.hold, "hold", 0, "time inside the critical section")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice")
	fl.StringVar(&f.out, "out", "results", "results root directory")
	fl.BoolVar(&f.asJSON, "json", false, "print a machine-readable result on stdout")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound on each run as a whole; past it the run stops, marked incomplete (default: duration + 1m)")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 10*time.Second, "bound on the checker; running out gives verdict unknown")
	return cmd
}

// scenario loads the named scenario, or makes a fault-free one from flags,
// and applies the flag overrides.
func (f *runFlags) scenario(cmd *cobra.Command, args []string) (*scenarios.Scenario, error) {
	var s *scenarios.Scenario
	if len(args) == 1 {
		var err error
		if s, err = scenarios.Lookup(args[0]); err != nil {
			return nil, err
		}
	} else {
		if len(f.algos) == 0 {
			return nil, errors.New("give a scenario (see 'locksim list') or --algo for a fault-free run")
		}
		s = &scenarios.Scenario{Name: "adhoc", Doc: "fault-free run from command-line flags"}
	}
	for _, a := range f.algos {
		if _, err := lock.Lookup(a); err != nil {
			return nil, fmt.Errorf("--algo: %w", err)
		}
	}
	changed := cmd.Flags().Changed
	if err := f.where.check(changed); err != nil {
		return nil, err
	}
	if changed("backend") && !f.where.external() {
		s.Backend = f.where.backend
	}
	positive := func(name string, v, most int) error {
		if v < 1 {
			return fmt.Errorf("--%s %d: must be at least 1", name, v)
		}
		if v > most {
			return fmt.Errorf("--%s %d: at most %d", name, v, most)
		}
		return nil
	}
	if changed("nodes") {
		if err := positive("nodes", f.nodes, sim.MaxNodes); err != nil {
			return nil, err
		}
		s.Nodes = &f.nodes
	}
	if changed("clients") {
		if err := positive("clients", f.clients, sim.MaxClients); err != nil {
			return nil, err
		}
		s.Clients = &f.clients
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		dst  **scenarios.Duration
	}{{"ttl", f.ttl, &s.Options.TTL}, {"duration", f.duration, &s.Duration}, {"hold", f.hold, &s.Hold}} {
		if !changed(d.name) {
			continue
		}
		if d.v <= 0 {
			return nil, fmt.Errorf("--%s %v: must be positive", d.name, d.v)
		}
		if d.v > sim.MaxDuration {
			return nil, fmt.Errorf("--%s %v: at most %v", d.name, d.v, sim.MaxDuration)
		}
		v := scenarios.Duration(d.v)
		*d.dst = &v
	}
	if changed("timeout") && f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: must be positive", f.timeout)
	}
	if changed("check-timeout") && f.checkTimeout <= 0 {
		return nil, fmt.Errorf("--check-timeout %v: must be positive", f.checkTimeout)
	}
	if changed("seed") {
		s.Seed = &f.seed
	}
	if n := len(f.where.addrs); n > 0 && s.Nodes != nil && *s.Nodes != n {
		// The node count comes from the addresses; a scenario written
		// for another count (its faults name nodes) is not silently
		// reshaped.
		given := fmt.Sprintf("%d addresses", n)
		if n == 1 {
			given = "1 address"
		}
		if changed("nodes") {
			return nil, fmt.Errorf("--nodes %d but --addrs gives %s (one per node)", *s.Nodes, given)
		}
		return nil, fmt.Errorf("scenario %s has nodes: %d but --addrs gives %s (one per node)", s.Name, *s.Nodes, given)
	}
	return s, nil
}

// jsonResult is what --json prints: each run as scenarios.Execute
// reported it.
type jsonResult struct {
	Scenario string              `json:"scenario"`
	Runs     []scenarios.Outcome `json:"runs"`
}

func (f *runFlags) run(ctx context.Context, stdout, stderr io.Writer, s *scenarios.Scenario) error {
	algos := f.algos
	if len(algos) == 0 {
		algos = s.Algorithms()
	}
	opts := f.where.runOptions()
	opts.Out, opts.CheckTimeout, opts.Timeout = f.out, f.checkTimeout, f.timeout
	// Every design's configuration is checked before anything runs, so
	// that what the backend cannot do is one line, not a failure midway.
	cfgs := map[string]sim.Config{}
	for _, algo := range algos {
		if e, ok := s.Expect(algo); ok && e.Verdict == scenarios.Skip {
			continue
		}
		cfg, err := s.RunConfig(algo, opts)
		if err != nil {
			return usageErr(err)
		}
		cfgs[algo] = cfg
	}
	if err := report.CheckOutRoot(f.out); err != nil {
		return usageErr(fmt.Errorf("--out %q: %w", f.out, err))
	}
	if err := f.where.preflight(ctx); err != nil {
		return usageErr(err)
	}
	reclaimLeftDirs(stderr)
	if w := f.where.where(); w != "" {
		fmt.Fprintln(stderr, w)
	}
	res := jsonResult{Scenario: s.Name}
	mismatches := 0
	for i, algo := range algos {
		fmt.Fprintf(stderr, "[%d/%d] %s with %s ...\n", i+1, len(algos), s.Name, algo)
		if cfg, ok := cfgs[algo]; ok {
			for _, w := range cfg.WithDefaults().Warnings() {
				fmt.Fprintln(stderr, "warning:", w)
			}
		}
		o, err := scenarios.Execute(ctx, s, algo, opts)
		if err != nil {
			if o.Dir != "" {
				fmt.Fprintf(stderr, "partial run kept in %s (incomplete: not a verdict)\n", o.Dir)
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return harnessErr(err)
		}
	}
	if mismatches > 0 {
		return &exitError{exitMismatch, fmt.Errorf("%d of %d verdicts differ from what %s expects", mismatches, len(algos), s.Name)}
	}
	return nil
}

func printOutcome(w io.Writer, o scenarios.Outcome) {
	if o.Skipped != "" {
		fmt.Fprintf(w, "%-14s skipped: %s\n", o.Algorithm, o.Skipped)
		return
	}
	var checks []string
	for _, name := range []string{"exclusion", "claim", "fencing", "liveness"} {
		checks = append(checks, fmt.Sprintf("%s %s", name, o.Checks[name]))
	}
	mark := "as expected"
	switch {
	case o.Expected == "" && o.AsExpected:
		mark = "nothing expected"
	case o.Expected == "":
		mark = "nothing expected, and not safe"
	case !o.AsExpected:
		mark = "EXPECTED " + o.Expected
	}
	fmt.Fprintf(w, "%-14s %-8s %s  [%s]  %s\n", o.Algorithm, strings.ToUpper(string(o.Verdict)), mark, strings.Join(checks, ", "), o.Dir)
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
