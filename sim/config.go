package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/locksim/locksim/lock"
)

// Config is one run: a design, a cluster, clients and the faults to play.
// It is plain data; the scenario loader builds it from YAML, and Resolve
// turns it into the Spec a run takes.
type Config struct {
	Algorithm string
	Options   lock.Options // TTL, drift, retry, watchdog, validity_check, fencing

	Cluster ClusterConfig

	Clients int
	Keys    int // lock keys the clients pick from [1]
	// KeyPrefix starts every lock key (KeyPrefix<n>), and so every key a
	// design derives from one (fencing counters, read/write markers,
	// unlock channels) ["locksim:"]. A run on servers others may use
	// gives it a run id of its own, so that its keys are its alone.
	KeyPrefix string
	Duration  time.Duration // how long clients keep cycling [3s]
	Hold      time.Duration // time inside the critical section [20ms]
	Think     time.Duration // pause between cycles [5ms]
	// ReadRatio is the share of cycles that take a read lock (read/write
	// designs only).
	ReadRatio float64
	// Roles fixes each client's mode, one entry per client: AccessRead,
	// AccessWrite, or "" to draw from ReadRatio every cycle. A fixed role
	// keeps who reads and who writes the same under every seed.
	Roles []Access
	// Nest is how many levels deep a client takes the lock each cycle
	// (reentrant designs only) [1]: the outer hold by the blocking acquire,
	// the inner ones by one attempt each; the inner holds are released
	// innermost first inside the critical section, halfway through the hold,
	// and the outer one after exit.
	Nest int
	Seed uint64

	Faults []Planned

	// VirtualTime runs the whole run in virtual time (see package vtime):
	// the cluster in memory (ClusterConfig.InMemory), every clock the
	// bubble's. miniredis only; Run needs a vtime.Host in its context.
	VirtualTime bool

	// NoProbe skips the liveness probe.
	NoProbe bool
	// ProbeSlack is added to the TTL to bound the liveness probe [max(TTL, 500ms)].
	ProbeSlack time.Duration
	// Grace bounds how long clients may take to finish their cycle after the
	// run's duration [2 x TTL + Hold + 1s].
	Grace time.Duration
}

// DefaultKeyPrefix starts the lock keys of a run that sets no KeyPrefix.
const DefaultKeyPrefix = "locksim:"

// LockKey is the name of lock key n.
func (c Config) LockKey(n int) string {
	p := c.KeyPrefix
	if p == "" {
		p = DefaultKeyPrefix
	}
	return p + strconv.Itoa(n)
}

// Spec is a run ready to play: a Config with every default applied and
// checked. Only Config.Resolve makes one, so whoever holds a Spec need not
// default or validate it again; Run, Replay and NewWorld take nothing else.
type Spec struct {
	cfg      Config
	resolved bool // false only in a Spec not made by Resolve (the zero value)
}

// Resolve applies every default (the one place run defaults are written)
// and validates the result: the Spec to run, or the first field that
// cannot work.
func (c Config) Resolve() (Spec, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return Spec{}, err
	}
	return Spec{cfg: c, resolved: true}, nil
}

// Config is a copy of the resolved configuration, every default filled in.
func (s Spec) Config() Config {
	c := s.cfg
	c.Faults = slices.Clone(c.Faults)
	c.Roles = slices.Clone(c.Roles)
	return c
}

// WithKeyPrefix is s with its lock keys under prefix (Config.KeyPrefix): a
// run on servers others use learns its prefix once it has leased them,
// and no default or check depends on it.
func (s Spec) WithKeyPrefix(prefix string) Spec {
	s.cfg.KeyPrefix = prefix
	return s
}

// Warnings are things that work but are probably not what the user meant.
func (s Spec) Warnings() []string { return s.cfg.warnings() }

// check rejects a Spec that Resolve did not make.
func (s Spec) check() error {
	if !s.resolved {
		return fmt.Errorf("%w: a Spec must come from Config.Resolve", ErrConfig)
	}
	return nil
}

// Defaults is the configuration of a run that sets no field: the defaults
// a caller shows or builds on (explore's and bench's sizes and times).
// Defaults that depend on the design are those of a single-node design.
func Defaults() Config { return defaults() }

var defaults = sync.OnceValue(func() Config { return Config{}.withDefaults() })

// DefaultNodeTimeout is the bound on one command to one node of a run of
// algorithm whose TTL is ttl and which sets none.
func DefaultNodeTimeout(algorithm string, ttl time.Duration) time.Duration {
	if info, err := lock.Lookup(algorithm); err == nil && info.MultiNode {
		// Redlock keeps its own, much smaller default.
		return lock.DefaultNodeTimeout(ttl)
	}
	// A simulated node that stops answering must not hold a client for
	// the connection's whole read timeout; but a bound as tight as
	// Redlock's (TTL/10) turns a slow harness (-race, a loaded machine)
	// into lost SETNX replies, i.e. keys without TTL no fault put there.
	return max(ttl/2, 50*time.Millisecond)
}

// withDefaults fills unset fields.
func (c Config) withDefaults() Config {
	c.Options = c.Options.Defaulted()
	if c.VirtualTime {
		c.Cluster.InMemory = true
	}
	if c.Options.NodeTimeout == 0 {
		c.Options.NodeTimeout = DefaultNodeTimeout(c.Algorithm, c.Options.TTL)
	}
	if c.Cluster.Backend == "" {
		c.Cluster.Backend = BackendMiniredis
	}
	if c.Cluster.Nodes == 0 {
		c.Cluster.Nodes = max(c.Cluster.NodeCount(), 1)
	}
	if c.Cluster.Replicas > 0 {
		if info, err := lock.Lookup(c.Algorithm); err == nil && info.Process && c.Cluster.Failover.Mode == "" && c.Cluster.Backend == BackendRedis {
			// a process design's child reaches each node at one address
			// (its proxy) and cannot follow Sentinel: the harness
			// promotes the replica itself
			c.Cluster.Failover.Mode = FailoverDirect
		}
		if f := c.Cluster.ResolvedFailover(); f.Mode != "" {
			c.Cluster.Failover = f
		}
	}
	if c.Clients == 0 {
		c.Clients = 2
	}
	if c.Keys == 0 {
		c.Keys = 1
	}
	if c.Nest == 0 {
		c.Nest = 1
	}
	if c.Duration == 0 {
		c.Duration = 3 * time.Second
	}
	if c.Hold == 0 {
		c.Hold = 20 * time.Millisecond
	}
	if c.Think == 0 {
		c.Think = 5 * time.Millisecond
	}
	if c.ProbeSlack == 0 {
		c.ProbeSlack = max(c.Options.TTL, 500*time.Millisecond)
	}
	if c.Grace == 0 {
		c.Grace = 2*c.Options.TTL + c.Hold + time.Second
	}
	if c.Cluster.Backend == BackendRedis && c.Cluster.Persistence == "" && c.keepsData() {
		// keep_data means the restarted node has every acknowledged
		// write; on redis-server only appendfsync always gives that.
		c.Cluster.Persistence = PersistenceAlways
	}
	if c.VirtualTime {
		// In memory every client goes through a proxy: its wire delay
		// is what keeps the clients' steps from falling into lockstep.
		c.Cluster.ProxiedClients = c.Clients
	}
	if c.Cluster.Seed == 0 {
		c.Cluster.Seed = c.Seed
	}
	if c.Cluster.ProxiedClients == 0 && c.needsNetwork() {
		c.Cluster.ProxiedClients = c.Clients
	}
	return c
}

// DataKeeper is implemented by faults that restart a node expecting its
// data back (kill-node with keep_data).
type DataKeeper interface {
	KeepsData() bool
}

func (c Config) keepsData() bool {
	for _, p := range c.Faults {
		if k, ok := p.Fault.(DataKeeper); ok && k.KeepsData() {
			return true
		}
	}
	return false
}

// NetworkUser is implemented by faults that act on the links between
// clients and nodes: a run with one puts every client behind proxies
// (ClusterConfig.ProxiedClients), which runs without cost nothing.
type NetworkUser interface {
	UsesNetwork(cfg Config) bool
}

// needsNetwork: a fault acts on client links, a replica's failover must
// redirect clients, or the user asked for a toxiproxy server.
func (c Config) needsNetwork() bool {
	if c.Cluster.Toxiproxy != "" || (c.Cluster.Replicas > 0 && c.Cluster.Backend == BackendRedis) || c.Cluster.Backend == BackendRedisCluster {
		return true
	}
	for _, p := range c.Faults {
		if u, ok := p.Fault.(NetworkUser); ok && u.UsesNetwork(c) {
			return true
		}
	}
	return false
}

// validate names the first field that cannot work in a config with
// defaults filled in: a fault's refusal (a *FaultError) first.
func (c Config) validate() error {
	if err := c.validateFaults(); err != nil {
		return err
	}
	info, err := lock.Lookup(c.Algorithm)
	if err != nil {
		return fmt.Errorf("algorithm: %w", err)
	}
	if info.Process && c.VirtualTime {
		return fmt.Errorf("algorithm %s: a process design runs on the wall clock and on TCP, not in virtual time", c.Algorithm)
	}
	if err := clusterRefusal(c.Cluster.Backend, info); err != nil {
		return err
	}
	if info.Process && c.Cluster.Replicas > 0 && c.Cluster.Failover.Mode == FailoverSentinel {
		return fmt.Errorf("failover.mode sentinel: algorithm %s is a process design, whose child reaches each node at one address and cannot follow Sentinel; use direct", c.Algorithm)
	}
	// Numeric ranges first (CheckValue): they are the same for every
	// design. lock.Options.Validate then guards what only the lock knows.
	if err := c.checkRanges(); err != nil {
		return err
	}
	if err := c.Options.Validate(); err != nil {
		return fmt.Errorf("options: %w", err)
	}
	switch {
	case c.ReadRatio > 0 && !info.ReadWrite:
		return fmt.Errorf("read_ratio %v: %s has no read lock", c.ReadRatio, c.Algorithm)
	case len(c.Roles) > 0 && len(c.Roles) != c.Clients:
		return fmt.Errorf("roles: %d given for %d clients; give one per client", len(c.Roles), c.Clients)
	case c.Nest > 1 && !info.Reentrant:
		return fmt.Errorf("nest %d: %s is not reentrant (a nested acquire would wait for its own hold)", c.Nest, c.Algorithm)
	case c.Options.Fencing && !info.Fencing:
		return fmt.Errorf("fencing: %s has no fencing tokens (use fenced)", c.Algorithm)
	case c.Options.Watchdog && !info.Watchdog:
		return fmt.Errorf("watchdog: %s has no watchdog", c.Algorithm)
	}
	if err := c.checkMachine(machineFDs(), machineMem(), machinePorts()); err != nil {
		return err
	}
	for i, r := range c.Roles {
		switch r {
		case AccessAny, AccessWrite:
		case AccessRead:
			if !info.ReadWrite {
				return fmt.Errorf("roles[%d] %s: %s has no read lock", i, r, c.Algorithm)
			}
		default:
			return fmt.Errorf("roles[%d] %q: unknown role; want read or write", i, r)
		}
	}
	if _, err := c.Cluster.Resolve(); err != nil {
		return err
	}
	return nil
}

// FaultError is a planned fault's refusal of the run it is planned in.
type FaultError struct {
	Index int   // in Config.Faults
	Fault Fault // nil: no fault was given
	Err   error
}

func (e *FaultError) Error() string {
	if e.Fault == nil {
		return fmt.Sprintf("faults[%d]: no fault", e.Index)
	}
	return fmt.Sprintf("faults[%d] %s: %v", e.Index, e.Fault, e.Err)
}

func (e *FaultError) Unwrap() error { return e.Err }

// validateFaults asks each fault whether it can play in c (defaults
// filled in); a fault's own check knows its kind best, so it comes first.
func (c Config) validateFaults() error {
	for i, p := range c.Faults {
		if p.Fault == nil {
			return &FaultError{Index: i}
		}
		if v, ok := p.Fault.(Validator); ok {
			if err := v.Validate(c); err != nil {
				return &FaultError{Index: i, Fault: p.Fault, Err: err}
			}
		}
	}
	return nil
}

// warnings are things that work but are probably not what the user meant.
func (c Config) warnings() []string {
	var out []string
	if info, err := lock.Lookup(c.Algorithm); err == nil && info.Expires && !c.Options.Watchdog && c.Hold >= c.Options.TTL {
		out = append(out, fmt.Sprintf("hold %v is not shorter than ttl %v and the watchdog is off: every lease expires inside its critical section", c.Hold, c.Options.TTL))
	}
	return out
}

// Fencing reports whether the run's leases carry fencing tokens, so the
// resource sees fenced writes instead of enter/exit.
func (c Config) Fencing() bool {
	info, err := lock.Lookup(c.Algorithm)
	return c.Options.Fencing || (err == nil && info.Fencing)
}

// ErrHarness marks failures of locksim itself (nodes did not start...), as
// opposed to bad input or an unsafe lock.
var ErrHarness = errors.New("harness failure")

// Patience is how long one of the run's clients may go on asking while the
// lock is free before the liveness check calls it starved: the lock's TTL
// (a notified waiter that missed the unlock message sleeps up to the
// holder's remaining TTL), one retry interval and its jitter, and the
// probe's slack; designs that judge expiry by client timestamps add their
// tolerance, as the probe does.
func (c Config) Patience() time.Duration {
	d := c.Options.TTL + c.Options.Retry.Interval + c.Options.Retry.Jitter + c.ProbeSlack
	if info, err := lock.Lookup(c.Algorithm); err == nil && info.ClientClock {
		d += c.Options.Tolerance
	}
	return d
}

// StartStagger is how far apart the clients start: client i begins its
// first cycle i x StartStagger after true time 0. It is much longer than
// the in-memory wire's delay and a loopback round trip, so client 0's
// first acquire reaches the nodes first on every backend, and much
// shorter than any TTL or hold a scenario gives.
const StartStagger = time.Millisecond
