package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the hidden --cpuprofile FILE flag: a CPU profile of the
// whole command (for `go tool pprof`), written for locksim's developers
// when a matrix or an exploration is slower than it should be.
type cpuProfile struct {
	path string
	f    *os.File
}

func (p *cpuProfile) register(root *cobra.Command) {
	root.PersistentFlags().StringVar(&p.path, "cpuprofile", "", "write a CPU profile of the command to FILE")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return p.start() }
}

func (p *cpuProfile) start() error {
	if p.path == "" {
		return nil
	}
	f, err := os.Create(p.path)
	if err != nil {
		return usageErr(fmt.Errorf("--cpuprofile %s: %w", p.path, err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return harnessErr(fmt.Errorf("--cpuprofile: %w", err))
	}
	p.f = f
	return nil
}

// stop ends the profile, whatever the command's outcome; a profile that
// cannot be closed is reported but does not change the exit code.
func (p *cpuProfile) stop() {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "locksim: --cpuprofile:", err)
	}
	p.f = nil
}
