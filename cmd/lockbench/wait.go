package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/sim"
)

// waitFlags is --wait: the hot-key comparison of ways to wait (poll at an
// interval, notify), a run of its own beside the design sweep.
type waitFlags struct {
	variants []string
	fs       *pflag.FlagSet
}

func (w *waitFlags) register(fs *pflag.FlagSet) {
	w.fs = fs
	fs.StringSliceVar(&w.variants, "wait", nil, "compare ways to wait on one hot key instead of the sweep: poll:<interval> and notify, comma-separated (e.g. poll:50ms,poll:1ms,notify); --clients [4,16,64], one design of --algos [setpx], --duration per row [2s]")
}

func (w *waitFlags) given() bool { return w.fs.Changed("wait") }

// notWithWait are the sweep's flags that mean nothing to the comparison.
var notWithWait = []string{"nodes", "contention", "warmup", "under", "quick"}

// config turns --wait and the shared flags into a bench.WaitConfig.
func (w *waitFlags) config(f *flags, now time.Time) (bench.WaitConfig, string, error) {
	var cfg bench.WaitConfig
	for _, name := range notWithWait {
		if f.changed(name) {
			return cfg, "", fmt.Errorf("--%s: not with --wait (the comparison runs one design on one node and one hot key)", name)
		}
	}
	for _, s := range w.variants {
		v, err := bench.ParseWaitVariant(s)
		if err != nil {
			return cfg, "", fmt.Errorf("--wait %s: %w", list(w.variants), err)
		}
		cfg.Variants = append(cfg.Variants, v)
	}
	if len(cfg.Variants) == 0 {
		return cfg, "", fmt.Errorf("--wait %q: give poll:<interval> or notify", list(w.variants))
	}
	switch sim.Backend(f.backend) {
	case sim.BackendRedis, sim.BackendMiniredis:
		cfg.Backend = sim.Backend(f.backend)
	default:
		return cfg, "", fmt.Errorf("--backend %q: want %q or %q", f.backend, sim.BackendRedis, sim.BackendMiniredis)
	}
	var err error
	if cfg.Server, err = f.serverKind(); err != nil {
		return cfg, "", err
	}
	cfg.RedisServer, cfg.Seed, cfg.Hold, cfg.TTL = f.redisServer, f.seed, f.hold, f.ttl
	if f.changed("algos") {
		algos, err := parseAlgos(f.algos, false)
		if err != nil {
			return cfg, "", err
		}
		if len(algos) != 1 {
			return cfg, "", fmt.Errorf("--algos %s: --wait compares one design", list(f.algos))
		}
		cfg.Algorithm = algos[0]
	}
	if f.changed("clients") {
		var err error
		if cfg.Clients, err = checkInts("clients", f.clients, 1, 1024); err != nil {
			return cfg, "", err
		}
	}
	if f.changed("duration") {
		cfg.Duration = f.duration
	}
	if f.changed("rounds") {
		cfg.Rounds = f.rounds
	}
	switch {
	case f.ttl < time.Millisecond:
		return cfg, "", fmt.Errorf("--ttl %v: must be at least 1ms", f.ttl)
	case f.hold < 0 || f.hold >= f.ttl/2:
		return cfg, "", fmt.Errorf("--hold %v: must be in [0, ttl/2) (--ttl %v), or leases expire while held", f.hold, f.ttl)
	case f.changed("rounds") && f.rounds < 1:
		return cfg, "", fmt.Errorf("--rounds %d: must be at least 1", f.rounds)
	}
	if cfg, err = cfg.Resolve(); err != nil {
		return cfg, "", errors.New(trimConfig(err))
	}
	out, err := f.out.Resolve("lockbench", artifact.Stamp(now))
	if err != nil {
		return cfg, "", err
	}
	return cfg, out, nil
}

func trimConfig(err error) string {
	s := err.Error()
	if p := bench.ErrConfig.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// measureWait runs the comparison cfg (resolved) and writes its files, as
// measure does for the sweep.
func measureWait(ctx context.Context, cfg bench.WaitConfig, out string, timeout time.Duration, command string, stdout, stderr io.Writer) int {
	est := time.Duration(len(cfg.Clients)*len(cfg.Variants)) * cfg.Duration
	if timeout <= 0 {
		timeout = 2*est + time.Minute
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	fmt.Fprintf(stderr, "lockbench --wait: %d rows, about %s of measuring; results to %s\n", len(cfg.Clients)*len(cfg.Variants), est.Round(time.Second), out)
	cfg.Progress = func(done, total int) { fmt.Fprintf(stderr, "  %d/%d segments\n", done, total) }
	rep, err := bench.RunWait(ctx, cfg)
	if code, failed := measureFailed(parent, ctx, err, timeout, stderr); failed {
		return code
	}
	rep.Command = command
	if err := rep.Write(out); err != nil {
		fmt.Fprintln(stderr, "lockbench: write results:", oneLine(err))
		return exitHarness
	}
	fmt.Fprint(stdout, rep.Table())
	fmt.Fprintf(stdout, "lockbench: wrote %s in %.1f s (see %s)\n", out, rep.WallS, bench.FileWaitSummary)
	return exitOK
}
