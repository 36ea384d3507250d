package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// replay is run --determinism N: each design of s runs N times in virtual
// time (sim.Replay) and its histories are compared byte for byte; nothing
// is written under --out. Exit 1 names the first line that differs.
func (f *runFlags) replay(ctx context.Context, stdout, stderr io.Writer, s *scenarios.Scenario, algos []string) error {
	if f.determinism < 2 {
		return usageErr(fmt.Errorf("--determinism %d: must be at least 2 (runs to compare)", f.determinism))
	}
	opts := f.where.runOptions()
	cfgs := map[string]sim.Spec{}
	for _, algo := range algos {
		if e, ok := s.Expect(algo); ok && e.Verdict == vocab.Skip {
			continue
		}
		cfg, err := s.RunConfig(algo, opts.Servers)
		if err != nil {
			return usageErr(err)
		}
		cfg.VirtualTime = opts.VirtualTime(ctx, cfg)
		if !cfg.VirtualTime {
			return usageErr(fmt.Errorf("--determinism: %s with %s does not run in virtual time (miniredis, an in-process design, no --real-time, no --toxiproxy)", s.Name, algo))
		}
		spec, err := cfg.Resolve()
		if err != nil {
			return usageErr(fmt.Errorf("%w: %w", sim.ErrConfig, err))
		}
		cfgs[algo] = spec
	}
	differ := 0
	for i, algo := range algos {
		spec, ok := cfgs[algo]
		if !ok {
			fmt.Fprintf(stdout, "%-14s skipped\n", algo)
			continue
		}
		fmt.Fprintf(stderr, "[%d/%d] %s with %s, %d runs ...\n", i+1, len(algos), s.Name, algo, f.determinism)
		r, err := sim.Replay(ctx, spec, f.determinism)
		if err != nil {
			if errors.Is(err, sim.ErrConfig) {
				return usageErr(err)
			}
			return harnessErr(err)
		}
		if r.First != nil {
			differ++
			fmt.Fprintf(stdout, "%-14s DIFFERS: %d distinct histories in %d runs; %s\n", algo, r.Distinct, r.Runs, r.First)
			continue
		}
		fmt.Fprintf(stdout, "%-14s identical in %d runs\n", algo, f.determinism)
	}
	if differ > 0 {
		return &exitError{exitMismatch, fmt.Errorf("%d of %d designs gave different histories for one seed", differ, len(cfgs))}
	}
	return nil
}
