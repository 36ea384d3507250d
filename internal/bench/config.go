package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/dups"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Raw names the raw-limit reference among the designs: SET NX PX and an
// EVALSHA compare-and-delete straight through go-redis.
const Raw = "raw"

// Contention says which keys the clients of one configuration lock.
type Contention string

const (
	// HotKey: every client locks the same key, so all but one are refused
	// and retry; it measures handover, not the lock's raw cost.
	HotKey Contention = "hot"
	// KeyPerClient: each client locks its own key and is never refused; it
	// measures what one lock cycle costs.
	KeyPerClient Contention = "per-client"
)

// Contentions lists the modes in the order reports show them.
func Contentions() []Contention { return []Contention{KeyPerClient, HotKey} }

// ParseContention accepts a mode's name.
func ParseContention(s string) (Contention, error) {
	for _, c := range Contentions() {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown contention %q (want %q or %q)", s, KeyPerClient, HotKey)
}

// Config is one bench run. The zero value of each field takes the default
// in brackets (Resolve).
type Config struct {
	// Backend is where the nodes run [redis]; on redis-cluster, Nodes
	// holds one size, the cluster's masters [3].
	Backend sim.Backend
	// Server is the program the redis backend runs: redis or valkey
	// [redis].
	Server      sim.Server
	RedisServer string // the server's binary [Server.Binary() from PATH]
	// Dir is the parent of the nodes' temp dir [os.TempDir()].
	Dir string

	// Algorithms are the designs to measure, Raw among them [every
	// registered design and Raw]. Single-node designs and Raw run at one
	// node, multi-node designs at each size above one in Nodes.
	Algorithms []string
	Clients    []int        // concurrent clients [1, 4, 16, 64]
	Nodes      []int        // cluster sizes [1, 3, 5]
	Contention []Contention // [per-client, hot]

	// Duration is the measured time of one configuration, split over Rounds
	// [3s].
	Duration time.Duration
	// Rounds interleave the designs of one cell: each round runs every
	// design for Duration/Rounds, in an order rotated per round. Short
	// slices, often alternated, let a noisy neighbour hit every design
	// alike [6].
	Rounds int
	// Warmup is run, unmeasured, once per design and cell before its first
	// round: it dials the connections and loads the scripts [300ms].
	Warmup time.Duration
	// Hold is the time inside the critical section [0: measure the lock
	// alone].
	Hold time.Duration
	// TTL is the lock expiry [a run's default, sim.Defaults].
	TTL time.Duration
	// RetryInterval is the wait after a refused attempt before the next
	// (lock.Blocking's policy, with jitter up to half of it, for every
	// design and for Raw) [1ms; the designs' own 50 ms would measure
	// sleeping].
	RetryInterval time.Duration
	Seed          uint64

	// Under, when set, replaces the sweep: each configuration (one per
	// design, as the scenario resolves it) runs through sim.Run while its
	// faults play. UnderName names the scenario in the report.
	Under     []sim.Config
	UnderName string

	// Progress, if set, is told about every finished step. It is called
	// from Run's goroutine and must not block for long.
	Progress func(Progress)
}

// Progress is one finished step of a run.
type Progress struct {
	Done, Total int
	// Step says what just finished, e.g. "setpx 16 clients per-client 1 node
	// round 2/3".
	Step string
	// Result is set when a configuration is complete.
	Result *Result
}

// Defaults of Config.
var (
	DefaultClients  = []int{1, 4, 16, 64}
	DefaultNodes    = []int{1, 3, 5}
	DefaultDuration = 3 * time.Second
	DefaultRounds   = 6
	DefaultWarmup   = 300 * time.Millisecond
	DefaultRetry    = time.Millisecond
	// DefaultClusterMasters is the masters of a redis-cluster sweep's
	// cluster (the fewest whose majority survives a failure).
	DefaultClusterMasters = 3
)

// QuickAlgorithms is the subset --quick measures: the references and one
// design of every family the seed articles compare (SETNX+EXPIRE,
// SETNX/GETSET, a Lua SETNX, SET NX PX, reentrant, read/write, Redlock,
// fenced).
var QuickAlgorithms = []string{"setpx", Raw, "redislock", "setnx-expire", "setnx-getset", "lua-setnx",
	"reentrant", "rwlock", "fenced", "redlock", "redsync"}

// Quick is a sweep that finishes in under a minute on redis-server:
// clients 1, 4 and 16, one node for single-node designs and raw, five for
// the multi-node ones and raw, 450 ms per configuration in three rounds
// (the fewest a median with a spread needs).
func Quick() Config {
	return Config{
		Algorithms: QuickAlgorithms,
		Clients:    []int{1, 4, 16},
		Nodes:      []int{1, 5},
		Duration:   450 * time.Millisecond,
		Rounds:     MinRepeats,
		Warmup:     60 * time.Millisecond,
	}
}

// DefaultAlgorithms is every registered design and Raw.
func DefaultAlgorithms() []string {
	return append(lock.Names(), Raw)
}

// Resolve returns c with every unset field at its default, or the first
// setting that cannot work, named as the flag that sets it (ErrConfig).
func (c Config) Resolve() (Config, error) {
	c = c.withDefaults()
	return c, c.validate()
}

// withDefaults returns c with every unset field at its default.
func (c Config) withDefaults() Config {
	if c.Backend == "" {
		c.Backend = sim.BackendRedis
	}
	if len(c.Algorithms) == 0 {
		c.Algorithms = DefaultAlgorithms()
	}
	if len(c.Clients) == 0 {
		c.Clients = DefaultClients
	}
	if len(c.Nodes) == 0 {
		c.Nodes = DefaultNodes
		if c.Backend == sim.BackendRedisCluster {
			c.Nodes = []int{DefaultClusterMasters}
		}
	}
	if len(c.Contention) == 0 {
		c.Contention = Contentions()
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if c.Warmup == 0 {
		c.Warmup = DefaultWarmup
	}
	if c.TTL == 0 {
		c.TTL = sim.Defaults().Options.TTL
	}
	if c.RetryInterval == 0 {
		c.RetryInterval = DefaultRetry
	}
	return c
}

// ErrConfig marks bad input, as opposed to a failure while running.
var ErrConfig = errors.New("bad bench configuration")

// validate names the first setting that cannot work, as the flag that sets
// it is called, in a config with defaults filled in.
func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch c.Backend {
	case sim.BackendRedis, sim.BackendMiniredis:
	case sim.BackendRedisCluster:
		if len(c.Nodes) != 1 {
			return bad("nodes %v: on %s give one size, the cluster's masters", c.Nodes, c.Backend)
		}
	default:
		return bad("backend %q: want %q, %q or %q", c.Backend, sim.BackendRedis, sim.BackendMiniredis, sim.BackendRedisCluster)
	}
	if err := node.CheckServer(c.Server); err != nil {
		return bad("%v", err)
	}
	if len(c.Under) > 0 {
		return c.validateUnder(bad)
	}
	for _, a := range c.Algorithms {
		if a == Raw {
			continue
		}
		if _, err := lock.Lookup(a); err != nil {
			return bad("algos: %v", err)
		}
	}
	if dup, ok := dups.First(c.Algorithms); ok {
		return bad("algos: %q given twice", dup)
	}
	for _, n := range c.Clients {
		// The same range as a scenario's clients (sim.CheckValue).
		if err := sim.CheckValue("clients", n); err != nil {
			return bad("%v", err)
		}
	}
	for _, n := range c.Nodes {
		if n < 1 || n > 9 {
			return bad("nodes %d: must be in [1, 9]", n)
		}
	}
	for _, m := range c.Contention {
		if _, err := ParseContention(string(m)); err != nil {
			return bad("contention: %v", err)
		}
	}
	switch {
	case c.Rounds < 1:
		return bad("rounds %d: must be at least 1", c.Rounds)
	case c.Duration < 10*time.Millisecond*time.Duration(c.Rounds):
		return bad("duration %v: must be at least 10ms per round (%d rounds)", c.Duration, c.Rounds)
	case c.Warmup < 0:
		return bad("warmup %v: must not be negative", c.Warmup)
	case c.Hold < 0:
		return bad("hold %v: must not be negative", c.Hold)
	case c.TTL < time.Millisecond:
		return bad("ttl %v: must be at least 1ms", c.TTL)
	case c.Hold >= c.TTL/2:
		return bad("hold %v: must be under half the ttl (%v), or leases expire while held", c.Hold, c.TTL)
	case c.RetryInterval < 0:
		return bad("retry %v: must not be negative", c.RetryInterval)
	}
	if len(plan(c)) == 0 {
		return bad("nodes %v: no design among %s runs at these sizes (single-node designs need 1, multi-node ones 2 or more)",
			c.Nodes, strings.Join(c.Algorithms, ","))
	}
	return nil
}

func (c Config) validateUnder(bad func(string, ...any) error) error {
	for i, u := range c.Under {
		if _, err := u.Resolve(); err != nil {
			return bad("under %s (%s): %v", c.UnderName, u.Algorithm, err)
		}
		if slices.ContainsFunc(c.Under[:i], func(v sim.Config) bool { return v.Algorithm == u.Algorithm }) {
			return bad("under %s: algorithm %q given twice", c.UnderName, u.Algorithm)
		}
	}
	return nil
}
