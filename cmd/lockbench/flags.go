package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/outflag"
	"github.com/locksim/locksim/internal/suggest"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// flags are the command line as given; config checks and converts them.
// List flags are pflag's lists, as on locksim: comma-separated or
// repeated (--clients 1,4 --clients 16).
type flags struct {
	out                         outflag.Flags
	backend, redisServer        string
	server                      string
	algos, contend              []string
	clients, nodes              []int
	duration, warmup, hold, ttl time.Duration
	retry, timeout              time.Duration
	rounds                      int
	seed                        uint64
	quick                       bool
	under                       string
	fs                          *pflag.FlagSet
}

func (f *flags) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.out.Register(fs, "lockbench", "<UTC stamp>/")
	fs.StringVar(&f.backend, "backend", string(sim.BackendRedis), "redis (redis-server processes), redis-cluster (a Redis Cluster of redis-server processes; --nodes is its masters) or miniredis (in-process; its Lua is slow)")
	fs.StringVar(&f.redisServer, "redis-server", "", "the server's binary [redis-server, or valkey-server with --server valkey, from PATH]")
	fs.StringVar(&f.server, "server", string(sim.ServerRedis), "what --backend redis starts: redis (redis-server) or valkey (valkey-server)")
	fs.StringSliceVar(&f.algos, "algos", []string{"all"}, "designs to measure, comma-separated, 'raw' for the raw limit; 'all' is every design and raw; see 'locksim algos'")
	fs.IntSliceVar(&f.clients, "clients", bench.DefaultClients, "concurrent clients, comma-separated")
	fs.IntSliceVar(&f.nodes, "nodes", bench.DefaultNodes, "cluster sizes: single-node designs and raw run at 1, multi-node designs (redlock, redsync) at the others")
	fs.StringSliceVar(&f.contend, "contention", []string{string(bench.KeyPerClient), string(bench.HotKey)}, "per-client (each client its own key), hot (one key for all), or both")
	fs.DurationVar(&f.duration, "duration", bench.DefaultDuration, "measured time per configuration, split over --rounds")
	fs.IntVar(&f.rounds, "rounds", bench.DefaultRounds, "rounds the designs of one cell are interleaved in")
	fs.DurationVar(&f.warmup, "warmup", bench.DefaultWarmup, "unmeasured warm-up per design and cell")
	fs.DurationVar(&f.hold, "hold", 0, "time inside the critical section")
	fs.DurationVar(&f.ttl, "ttl", sim.Defaults().Options.TTL, "lock TTL")
	fs.DurationVar(&f.retry, "retry", bench.DefaultRetry, "wait after a refused attempt (plus up to half of it as jitter)")
	fs.Uint64Var(&f.seed, "seed", 0, "base seed of every random choice (each client's retry jitter and lock tokens; under --under, added to the scenario's seed)")
	fs.DurationVar(&f.timeout, "timeout", 0, "bound on the whole command's wall time; past it the measuring stops, the sweep's finished cells are written to DIR-incomplete, exit 3 (default: twice the estimate + 1m)")
	fs.BoolVar(&f.quick, "quick", false, "a sweep under a minute: clients 1,4,16, nodes 1 and 5, 450ms per configuration in 3 rounds, every design family and the references")
	fs.StringVar(&f.under, "under", "", "run the load under a scenario's faults (a built-in name or a YAML file) and draw latency over time")
}

// changed tells whether the user set a flag.
func (f *flags) changed(name string) bool { return f.fs.Changed(name) }

// flagError rewords pflag's parse errors as one line naming the flag and
// the value, as config's own errors do; an unknown flag gets the closest
// names fs has (did you mean).
func flagError(fs *pflag.FlagSet, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if c := suggest.Closest(ne.GetSpecifiedName(), names); len(c) > 0 {
			return fmt.Errorf("%w (did you mean --%s?)", err, strings.Join(c, " or --"))
		}
		return err
	}
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	want := map[string]string{
		"intSlice": "want whole numbers, comma-separated",
		"int":      "want a whole number",
		"uint64":   "want a whole number, 0 or more",
		"duration": "want a duration such as 500ms or 3s",
		"bool":     "want true or false",
	}[iv.GetFlag().Value.Type()]
	if want == "" {
		want = iv.Unwrap().Error()
	}
	return fmt.Errorf("--%s %q: %s", iv.GetFlag().Name, iv.GetValue(), want)
}

// list shows a list flag's value as it would be given.
func list[T any](vs []T) string {
	var ss []string
	for _, v := range vs {
		ss = append(ss, fmt.Sprint(v))
	}
	return strings.Join(ss, ",")
}

// sweepOnly are the flags a scenario decides for itself under --under.
var sweepOnly = []string{"clients", "nodes", "contention", "duration", "rounds", "warmup", "hold", "ttl", "retry"}

// config turns the flags into a bench config and the output directory.
// Errors name the flag and the value at fault. changed tells which flags
// the user set (so --quick's choices give way to explicit ones).
func (f *flags) config(now time.Time) (bench.Config, string, error) {
	changed := f.changed
	var cfg bench.Config
	if f.quick {
		cfg = bench.Quick()
	}
	switch sim.Backend(f.backend) {
	case sim.BackendRedis, sim.BackendMiniredis, sim.BackendRedisCluster:
		cfg.Backend = sim.Backend(f.backend)
	default:
		return cfg, "", fmt.Errorf("--backend %q: want %q, %q or %q", f.backend, sim.BackendRedis, sim.BackendMiniredis, sim.BackendRedisCluster)
	}
	server, err := f.serverKind()
	if err != nil {
		return cfg, "", err
	}
	cfg.Server = server
	cfg.RedisServer = f.redisServer
	cfg.Seed = f.seed
	if changed("timeout") && f.timeout <= 0 {
		return cfg, "", fmt.Errorf("--timeout %v: must be positive", f.timeout)
	}

	out, err := f.out.Resolve("lockbench", artifact.Stamp(now))
	if err != nil {
		return cfg, "", err
	}

	if f.under != "" {
		for _, name := range sweepOnly {
			if changed(name) {
				return cfg, "", fmt.Errorf("--%s: not with --under (the scenario sets it)", name)
			}
		}
		return f.underConfig(cfg, out)
	}

	if changed("algos") || !f.quick {
		if cfg.Algorithms, err = parseAlgos(f.algos, true); err != nil {
			return cfg, "", err
		}
	}
	if changed("clients") || !f.quick {
		if cfg.Clients, err = checkInts("clients", f.clients, 1, sim.MaxClients); err != nil {
			return cfg, "", err
		}
	}
	switch {
	case cfg.Backend == sim.BackendRedisCluster && !changed("nodes"):
		cfg.Nodes = []int{bench.DefaultClusterMasters} // one cluster of this many masters
	case changed("nodes") || !f.quick:
		if cfg.Nodes, err = checkInts("nodes", f.nodes, 1, 9); err != nil {
			return cfg, "", err
		}
		if cfg.Backend == sim.BackendRedisCluster && len(cfg.Nodes) != 1 {
			return cfg, "", fmt.Errorf("--nodes %s: on --backend %s give one size, the cluster's masters", list(cfg.Nodes), cfg.Backend)
		}
	}
	if cfg.Contention, err = parseContention(f.contend); err != nil {
		return cfg, "", err
	}
	if changed("duration") || !f.quick {
		cfg.Duration = f.duration
	}
	if changed("rounds") || !f.quick {
		cfg.Rounds = f.rounds
	}
	if changed("warmup") || !f.quick {
		cfg.Warmup = f.warmup
	}
	cfg.Hold, cfg.TTL, cfg.RetryInterval = f.hold, f.ttl, f.retry
	switch {
	case cfg.Rounds < 1:
		return cfg, "", fmt.Errorf("--rounds %d: must be at least 1", cfg.Rounds)
	case cfg.Duration < 10*time.Millisecond*time.Duration(cfg.Rounds):
		return cfg, "", fmt.Errorf("--duration %v: must be at least 10ms per round (--rounds %d)", cfg.Duration, cfg.Rounds)
	case cfg.Warmup < 0:
		return cfg, "", fmt.Errorf("--warmup %v: must not be negative", cfg.Warmup)
	case f.ttl < time.Millisecond:
		return cfg, "", fmt.Errorf("--ttl %v: must be at least 1ms", f.ttl)
	case f.hold < 0 || f.hold >= f.ttl/2:
		return cfg, "", fmt.Errorf("--hold %v: must be in [0, ttl/2) (--ttl %v), or leases expire while held", f.hold, f.ttl)
	case f.retry <= 0:
		return cfg, "", fmt.Errorf("--retry %v: must be positive", f.retry)
	}
	// What only the bench can judge (e.g. no design runs at these sizes).
	if _, err := cfg.Resolve(); err != nil {
		return cfg, "", fmt.Errorf("--%s", strings.TrimPrefix(err.Error(), bench.ErrConfig.Error()+": "))
	}
	return cfg, out, nil
}

// underConfig resolves the scenario for each design. The scenario decides
// clients, nodes, timing and faults; --backend overrides its backend only
// when given (lockbench's default, redis, applies when the scenario names
// none).
func (f *flags) underConfig(cfg bench.Config, out string) (bench.Config, string, error) {
	changed := f.changed
	s, err := scenarios.Lookup(f.under)
	if err != nil {
		return cfg, "", fmt.Errorf("--under %q: %w", f.under, err)
	}
	algos := s.Algorithms()
	if changed("algos") {
		if algos, err = parseAlgos(f.algos, false); err != nil {
			return cfg, "", err
		}
	} else if f.quick {
		algos = slices.DeleteFunc(algos, func(a string) bool { return !slices.Contains(bench.QuickAlgorithms, a) })
	}
	cfg.UnderName = s.Name
	for _, a := range algos {
		sc, err := s.Config(a)
		if err != nil {
			return cfg, "", fmt.Errorf("--under %q, design %s: %w", f.under, a, err)
		}
		if changed("backend") || sc.Cluster.Backend == "" {
			sc.Cluster.Backend = cfg.Backend
		}
		sc.Cluster.RedisServer = f.redisServer
		if sc.Cluster.Backend == sim.BackendRedis {
			sc.Cluster.Server = cfg.Server
		}
		sc.Seed += f.seed
		cfg.Under = append(cfg.Under, sc)
	}
	if len(cfg.Under) == 0 {
		return cfg, "", fmt.Errorf("--under %q: no design to run (--algos %s)", f.under, list(f.algos))
	}
	if _, err := cfg.Resolve(); err != nil {
		return cfg, "", fmt.Errorf("--under %q: %s", f.under, strings.TrimPrefix(err.Error(), bench.ErrConfig.Error()+": "))
	}
	return cfg, out, nil
}

func parseAlgos(given []string, rawOK bool) ([]string, error) {
	if len(given) == 1 && given[0] == "all" {
		if rawOK {
			return bench.DefaultAlgorithms(), nil
		}
		return lock.Names(), nil
	}
	var out []string
	for _, a := range given {
		a = strings.TrimSpace(a)
		switch {
		case a == "":
			continue
		case a == "all":
			return nil, fmt.Errorf("--algos %s: all stands alone", list(given))
		case a == bench.Raw && !rawOK:
			return nil, fmt.Errorf("--algos %s: raw is not a lock design and cannot run under a scenario", list(given))
		case a == bench.Raw:
		default:
			if _, err := lock.Lookup(a); err != nil {
				return nil, fmt.Errorf("--algos %s: %w", list(given), err)
			}
		}
		if slices.Contains(out, a) {
			return nil, fmt.Errorf("--algos %s: %s given twice", list(given), a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--algos %q: no design given", list(given))
	}
	return out, nil
}

func checkInts(name string, given []int, lo, hi int) ([]int, error) {
	var out []int
	for _, n := range given {
		if n < lo || n > hi {
			return nil, fmt.Errorf("--%s %s: %d is outside [%d, %d]", name, list(given), n, lo, hi)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--%s %s: %d given twice", name, list(given), n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s %q: give at least one value", name, list(given))
	}
	return out, nil
}

func parseContention(given []string) ([]bench.Contention, error) {
	var out []bench.Contention
	for _, v := range given {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if v == "both" {
			for _, c := range bench.Contentions() {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
			continue
		}
		c, err := bench.ParseContention(v)
		if err != nil {
			return nil, fmt.Errorf("--contention %s: %w (or both)", list(given), err)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--contention %q: give per-client, hot or both", list(given))
	}
	return out, nil
}
