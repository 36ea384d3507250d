package explore

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// KindNone, as the only kind, makes every schedule fault-free: only the
// seed (retry jitter, the interleaving) varies.
const KindNone vocab.Kind = "none"

// Confirm modes: where a shrunk violation is replayed besides virtual time.
const (
	ConfirmNone  = "none"  // virtual time only
	ConfirmRedis = "redis" // also on redis-server processes, in real time
)

// Config is one exploration of one design. The zero value of every field
// but Algorithm has a default (Resolve); those of a run's size and times
// are the simulator's (sim.Defaults).
type Config struct {
	Algorithm string
	// Kinds are the fault kinds schedules draw from; empty: DefaultKinds;
	// [KindNone]: no faults.
	Kinds []vocab.Kind
	// Runs is how many schedules to run (over all shards); For bounds the
	// search in wall time instead. Neither (and no Timeout): 500 runs.
	Runs int
	For  time.Duration
	// Timeout bounds the whole exploration in wall time: the search,
	// shrinking, confirmation and writing (Plan splits it). Shrinking and
	// confirmation stop when their share ends, and what they left undone
	// is recorded (Violation.Unshrunk). 0: no bound beyond Runs or For.
	Timeout time.Duration

	Clients  int           // [sim's]
	Nodes    int           // [DefaultNodes]
	TTL      time.Duration // [sim's]
	Duration time.Duration // simulated run length [sim's]
	Hold     time.Duration // [sim's]
	// MaxFaults bounds the faults of one schedule [4].
	MaxFaults int
	// Exhaustive runs the bounded sweep instead of random draws: every
	// single-fault schedule, then pairs while Runs or For lasts (neither:
	// the singles alone); see exhaustive.go.
	Exhaustive bool
	// Unguided draws schedule j from (Seed, j) alone; by default a random
	// draw is steered toward the (point, kind) pairs earlier runs did not
	// reach (guide.go).
	Unguided bool

	Seed uint64 // base seed; schedule j draws from (Seed, j)
	// Shard and Shards: this exploration runs the schedules j with
	// j mod Shards == Shard [0 of 1].
	Shard, Shards int

	// Confirm is ConfirmRedis or ConfirmNone [ConfirmNone].
	Confirm string
	// Reruns and Need: a shrink step is kept while the same check fails in
	// at least Need of Reruns reruns [8 of 10].
	Reruns, Need int
	// MaxShrink bounds how many distinct violations are shrunk [10]; the
	// others are kept as found.
	MaxShrink int
	// NoShrink keeps every violation as found.
	NoShrink bool
	// Against is the reference design every violating schedule is run on
	// too [the design's lock.Info.Like; AgainstNone: none]; a violation
	// the reference shares is Known. Strict fails the exploration on every
	// violation, not only on those the reference does not share.
	Against string
	Strict  bool
	// Workers run schedules at once [GOMAXPROCS].
	Workers int
	// Out is the exploration's directory (explore.json, summary.md, the
	// shrunk scenarios and their run directories); empty: nothing is
	// written and Violation.Scenario stays empty.
	Out string
	// Progress, when set, is told about every finished run.
	Progress func(p Progress)

	// onSchedule, in tests, is told the index of each schedule run.
	onSchedule func(j int)
	// now, in tests, is the clock the budget reads [time.Now].
	now func() time.Time
}

// Progress is the state of an exploration, for a progress display.
type Progress struct {
	Runs       int     // finished
	Total      int     // planned; 0 when bounded by time
	Found      int     // violating runs
	Distinct   int     // distinct signatures
	RunsPerMin float64 // over the wall time so far
	Phase      string  // "explore", "shrink 1/3", "confirm 2/3"
	// Line is a line worth printing without a bar: a new signature.
	Line string
}

// Resolve fills in the unset fields and validates the result: the
// exploration to run, or the first setting that cannot work (BadInput).
func (c Config) Resolve() (Config, error) {
	c = c.withDefaults()
	return c, c.validate()
}

// withDefaults fills in the unset fields.
func (c Config) withDefaults() Config {
	run := sim.Defaults()
	if c.Runs == 0 && c.For == 0 && c.Timeout == 0 && !c.Exhaustive {
		c.Runs = 500
	}
	if c.Clients == 0 {
		c.Clients = run.Clients
	}
	if c.Nodes == 0 {
		c.Nodes = DefaultNodes
	}
	if c.TTL == 0 {
		c.TTL = run.Options.TTL
	}
	if c.Duration == 0 {
		c.Duration = run.Duration
	}
	if c.Hold == 0 {
		c.Hold = run.Hold
	}
	if c.MaxFaults == 0 {
		c.MaxFaults = 4
	}
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Confirm == "" {
		c.Confirm = ConfirmNone
	}
	if c.Reruns == 0 {
		c.Reruns = 10
	}
	if c.Need == 0 {
		c.Need = min(8, c.Reruns)
	}
	if c.MaxShrink == 0 {
		c.MaxShrink = 10
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if len(c.Kinds) == 0 {
		c.Kinds = DefaultKinds(c.Algorithm)
	}
	return c
}

// BadInput marks a Config that cannot run; its message names the field
// (as the CLI flag) and the value.
var BadInput = errors.New("bad input")

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", BadInput, fmt.Sprintf(format, args...))
}

// validate checks a Config with defaults filled in.
func (c Config) validate() error {
	info, err := lock.Lookup(c.Algorithm)
	if err != nil {
		return bad("--algos: %v", err)
	}
	if info.Process {
		return bad("--algos %s: explore runs in virtual time; %s is a process design that runs in real time only", c.Algorithm, c.Algorithm)
	}
	if err := c.validateAgainst(); err != nil {
		return err
	}
	for _, k := range c.Kinds {
		if k == KindNone {
			if len(c.Kinds) > 1 {
				return bad("--kinds %s: none means fault-free schedules, alone", strings.Join(vocab.KindStrings(c.Kinds), ","))
			}
			continue
		}
		if !slices.Contains(faults.DrawableKinds(), k) {
			return bad("--kinds %s: unknown fault kind (known: %s)", k, strings.Join(vocab.KindStrings(faults.DrawableKinds()), ", "))
		}
		if k.Attrs().Promotes && info.MultiNode {
			return bad("--kinds failover: %s runs on independent masters without replicas", c.Algorithm)
		}
	}
	if c.Exhaustive && slices.Equal(c.Kinds, []vocab.Kind{KindNone}) {
		return bad("--exhaustive --kinds none: a sweep of fault-free schedules has nothing to sweep")
	}
	switch {
	case c.Runs < 0:
		return bad("--runs %d: must not be negative", c.Runs)
	case c.For < 0:
		return bad("--for %v: must not be negative", c.For)
	case c.Timeout < 0:
		return bad("--timeout %v: must not be negative", c.Timeout)
	case c.Timeout > 0 && c.For > c.Timeout:
		return bad("--timeout %v: shorter than --for %v (--for bounds the search, --timeout the whole exploration)", c.Timeout, c.For)
	case c.Clients < 1 || c.Clients > 16:
		return bad("--clients %d: want 1 to 16", c.Clients)
	case c.Nodes < 1 || c.Nodes > sim.MaxNodes:
		return bad("--nodes %d: want 1 to %d", c.Nodes, sim.MaxNodes)
	case c.TTL < 10*time.Millisecond:
		return bad("--ttl %v: at least 10ms", c.TTL)
	case c.Duration < 100*time.Millisecond || c.Duration > time.Hour:
		return bad("--duration %v: want 100ms to 1h", c.Duration)
	case c.Hold <= 0:
		return bad("--hold %v: must be positive", c.Hold)
	case c.MaxFaults < 1 || c.MaxFaults > 20:
		return bad("--max-faults %d: want 1 to 20", c.MaxFaults)
	case c.Shards < 1 || c.Shard < 0 || c.Shard >= c.Shards:
		return bad("--shard %d/%d: want i/n with 0 <= i < n", c.Shard, c.Shards)
	case c.Confirm != ConfirmNone && c.Confirm != ConfirmRedis:
		return bad("--confirm %q: want redis or none", c.Confirm)
	case c.Reruns < 1 || c.Need < 1 || c.Need > c.Reruns:
		return bad("reruns %d, need %d: want 1 <= need <= reruns", c.Reruns, c.Need)
	case c.Workers < 1:
		return bad("workers %d: at least 1", c.Workers)
	}
	return nil
}

// DefaultKinds are the fault kinds an exploration of algo draws from by
// default: every kind the simulator can play in virtual time on miniredis,
// except those the design cannot meet (failover for designs on
// independent masters, which have no replicas).
func DefaultKinds(algo string) []vocab.Kind {
	var out []vocab.Kind
	info, _ := lock.Lookup(algo)
	for _, k := range faults.RandomKinds() {
		if k.Attrs().Promotes && info.MultiNode {
			continue
		}
		out = append(out, k)
	}
	return out
}
