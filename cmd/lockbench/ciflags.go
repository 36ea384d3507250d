package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/bench"
)

// ciFlags are the flags for CI and for profiling the harness: machine
// output, a baseline to hold the run against, and pprof files. They sit
// apart from the sweep's flags, and act only around the measuring.
type ciFlags struct {
	json                   bool
	baseline, save         string
	cpuProfile, memProfile string
	base                   *bench.Baseline // read from baseline by check
	stdout                 io.Writer       // where --json goes; the rest goes to stderr
}

func (c *ciFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print the results on stdout as JSON ({\"results\": [...]}, one object per design and cell, raw included); progress goes to stderr")
	fs.StringVar(&c.baseline, "baseline", "", "a baseline file (--save-baseline), or an earlier run's bench.json or directory: exit 1 when a ratio fell below every round of the baseline by more than 10% in two of its cells")
	fs.StringVar(&c.save, "save-baseline", "", "write this run's ratios, with the command and the machine's load, to this file for --baseline")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the measuring to this file (go tool pprof)")
	fs.StringVar(&c.memProfile, "memprofile", "", "write an allocation profile of the measuring to this file (go tool pprof -sample_index=alloc_objects)")
}

// check reads the baseline before anything is measured, so that a typo
// costs nothing.
func (c *ciFlags) check() error {
	if c.baseline == "" {
		return nil
	}
	b, err := bench.ReadBaseline(c.baseline)
	if err != nil {
		return fmt.Errorf("--baseline %q: %w", c.baseline, err)
	}
	c.base = &b
	return nil
}

// profile starts the CPU profile, if asked for; stop ends it and writes
// the allocation profile.
func (c *ciFlags) profile() (stop func() error, err error) {
	var cpu *os.File
	if c.cpuProfile != "" {
		if cpu, err = os.Create(c.cpuProfile); err != nil {
			return nil, fmt.Errorf("--cpuprofile %q: %w", c.cpuProfile, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile %q: %w", c.cpuProfile, err)
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return fmt.Errorf("--cpuprofile %q: %w", c.cpuProfile, err)
			}
		}
		if c.memProfile == "" {
			return nil
		}
		f, err := os.Create(c.memProfile)
		if err != nil {
			return fmt.Errorf("--memprofile %q: %w", c.memProfile, err)
		}
		runtime.GC() // up-to-date statistics
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return fmt.Errorf("--memprofile %q: %w", c.memProfile, err)
		}
		return f.Close()
	}, nil
}

// report writes the baseline file (when asked), prints the JSON (when
// asked) and the baseline's verdict, and returns the exit code:
// exitDiffers when a ratio fell.
func (c *ciFlags) report(rep *bench.Report, out string, stderr io.Writer) int {
	if c.save != "" {
		if err := c.saveBaseline(rep); err != nil {
			fmt.Fprintln(stderr, "lockbench: --save-baseline:", oneLine(err))
			return exitHarness
		}
	}
	ci := rep.CI()
	ci.Out = out
	if c.base != nil {
		ci.Baseline = c.baseline
		ci.Regressions, ci.Unmatched = bench.Compare(c.base.Ratios(), bench.RatiosOf(rep))
	}
	if c.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ci); err != nil {
			fmt.Fprintln(stderr, "lockbench: --json:", err)
			return exitHarness
		}
	}
	if c.base == nil {
		return exitOK
	}
	for _, g := range ci.Regressions {
		fmt.Fprintln(stderr, "lockbench: fell since the baseline:", g)
	}
	if ci.Unmatched > 0 {
		fmt.Fprintf(stderr, "lockbench: %d ratio(s) had no counterpart in the baseline %s\n", ci.Unmatched, c.baseline)
	}
	if len(ci.Regressions) > 0 {
		last := c.base.Runs[len(c.base.Runs)-1]
		fmt.Fprintf(stderr, "lockbench: %d ratio(s) fell beyond their noise since %s (%d run(s), the last made by: %s)\n",
			len(ci.Regressions), c.baseline, len(c.base.Runs), last.Command)
		return exitDiffers
	}
	fmt.Fprintf(stderr, "lockbench: no ratio fell beyond its noise since %s\n", c.baseline)
	return exitOK
}

// saveBaseline adds this run to the --save-baseline file (a new one when
// there is none), which keeps the last bench.BaselineRuns runs.
func (c *ciFlags) saveBaseline(rep *bench.Report) error {
	var b bench.Baseline
	if _, err := os.Stat(c.save); err == nil {
		if b, err = bench.ReadBaseline(c.save); err != nil {
			return fmt.Errorf("%q: %w", c.save, err)
		}
	}
	b.Add(bench.RunOf(rep, loadAverage()))
	if err := bench.WriteBaseline(c.save, b); err != nil {
		return err
	}
	return nil
}

// loadAverage is /proc/loadavg's first three fields, "" where there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
