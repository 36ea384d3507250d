// Package scenarios loads scenario files (the YAML schema in README.md,
// "Writing a scenario") and holds the built-in catalogue of named scenarios
// with their expected verdicts.
//
// A scenario is data: Parse checks a file strictly (an unknown field, a bad
// duration, an index out of range are errors naming the file, line and
// field) and Config resolves it, for one algorithm, into the sim.Config a
// run takes. The Scenario type mirrors the file: a field the file leaves out
// is nil, so that what was written and what was defaulted stay apart until
// Resolved fills in the defaults for a run's scenario.yaml.
//
// Plan resolves a scenario once for one design on the servers a run uses
// (Servers): its configuration, its expectation and its scenario.yaml;
// Unplayed reads from a history whether the run played it. Running the
// pair is package run, which imports this one and never the
// other way round.
package scenarios

import (
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Scenario is one scenario file as written. Pointer fields are nil when the
// file leaves them out; Config and Resolved apply the defaults of sim.Config
// and lock.Options.
type Scenario struct {
	Name   string `yaml:"name"`
	Doc    string `yaml:"doc,omitempty"`
	Source string `yaml:"source,omitempty"`
	// Family overrides the family the faults give (FamilyOf).
	Family string `yaml:"family,omitempty"`
	// Algorithm names the designs the scenario runs by default; empty means
	// every registered design. A CLI's --algos overrides it.
	Algorithm AlgorithmList `yaml:"algorithm,omitempty"`
	Options   Options       `yaml:"options,omitempty"`

	Backend     string `yaml:"backend,omitempty"`     // miniredis | redis
	Server      string `yaml:"server,omitempty"`      // redis | valkey: what backend redis runs [redis]
	Nodes       *int   `yaml:"nodes,omitempty"`       // masters [1]
	Replicas    *int   `yaml:"replicas,omitempty"`    // per master, 0 or 1 [0]
	Persistence string `yaml:"persistence,omitempty"` // none | everysec | always (redis backend)
	// Failover says who promotes a replica: {mode: sentinel | direct |
	// emulated, down_after, failover_timeout, parallel_syncs} [sentinel on
	// redis with replicas, emulated on miniredis].
	Failover *Failover `yaml:"failover,omitempty"`

	Clients   *int     `yaml:"clients,omitempty"`    // [2]
	Keys      *int     `yaml:"keys,omitempty"`       // lock keys the clients pick from [1]
	ReadRatio *float64 `yaml:"read_ratio,omitempty"` // share of cycles taking a read lock [0]
	// Roles fixes each client's lock mode, one per client: read, write,
	// or any (drawn from read_ratio each cycle).
	Roles []string `yaml:"roles,omitempty,flow"`
	// Nest is how many levels deep each client takes a reentrant lock per
	// cycle [1]; the inner levels unwind inside the critical section.
	Nest     *int      `yaml:"nest,omitempty"`
	Duration *Duration `yaml:"duration,omitempty"` // how long clients cycle [3s]
	Hold     *Duration `yaml:"hold,omitempty"`     // inside the critical section [20ms]
	Think    *Duration `yaml:"think,omitempty"`    // between cycles [5ms]
	Seed     *uint64   `yaml:"seed,omitempty"`     // [0]

	Faults []FaultSpec `yaml:"faults,omitempty"`
	// Require says what must have happened for a run to count as playing
	// the scenario (see Requirement).
	Require []Requirement `yaml:"require,omitempty"`
	// Expectations are the expected verdicts, per algorithm or "*" (expect:).
	Expectations Expectations `yaml:"expect,omitempty"`

	// file and lines let errors found after parsing (Config for an
	// algorithm the file did not list) still name a line.
	file  string
	lines map[string]int
	// written is the backend the file names, which a command line's
	// --backend does not change: a file written for a Redis Cluster plays
	// slots, redirects and elections that no other backend has.
	written string
}

// Options are the lock options a scenario may set (lock.Options).
type Options struct {
	TTL   *Duration `yaml:"ttl,omitempty"`   // [500ms]
	Drift *float64  `yaml:"drift,omitempty"` // clock drift factor, in (0, 0.5) [0.01]
	// Retries counts the attempts an acquire makes after its first; nil keeps
	// trying until the run ends (lock.RetryPolicy.MaxTries = Retries + 1).
	Retries    *int      `yaml:"retries,omitempty"`
	RetryDelay *Duration `yaml:"retry_delay,omitempty"` // between attempts [50ms]
	Watchdog   *bool     `yaml:"watchdog,omitempty"`    // [false]
	Fencing    *bool     `yaml:"fencing,omitempty"`     // [false; the fenced design always fences]
	// ValidityCheck makes a client check its lease's remaining validity
	// before entering [true].
	ValidityCheck *bool `yaml:"validity_check,omitempty"`
	// NodeTimeout bounds one command to one node [max(ttl/2, 50ms);
	// multi-node designs max(ttl/10, 5ms)].
	NodeTimeout *Duration `yaml:"node_timeout,omitempty"`
	Tolerance   *Duration `yaml:"tolerance,omitempty"` // setnx-getset's clock allowance [1s]
	// Wait is how a blocked acquire waits: poll (retry_delay plus jitter)
	// or notify (Redisson's unlock message, else the holder's PTTL) [poll].
	Wait *string `yaml:"wait,omitempty"`
}

// FaultSpec is one entry of faults: as written. Which fields a kind reads is
// in the kind's registry entry (faults.Lookup); any other field is an error.
type FaultSpec struct {
	Kind   vocab.Kind `yaml:"kind"`
	Client *int       `yaml:"client,omitempty"`
	Node   *int       `yaml:"node,omitempty"`

	// The trigger: At (true time since the run's start) or When, exactly one.
	At   *Duration  `yaml:"at,omitempty"`
	When *PointSpec `yaml:"when,omitempty,flow"`
	// Optional: the fault may never fire for some designs (its point is
	// one only some designs reach), and a run is still the scenario. A
	// fault that is not optional and never fires makes the run not count:
	// it did not play the scenario.
	Optional *bool `yaml:"optional,omitempty"`
	// For bounds the fault; Until ends it when a client reaches a point.
	// Without either it lasts until the clients stop, then heals.
	For   *Duration  `yaml:"for,omitempty"`
	Until *PointSpec `yaml:"until,omitempty,flow"`

	By           *Duration  `yaml:"by,omitempty"`     // clock jumps
	Offset       *Duration  `yaml:"offset,omitempty"` // clock skew
	Rate         *float64   `yaml:"rate,omitempty"`   // clock rate
	Latency      *Duration  `yaml:"latency,omitempty"`
	Jitter       *Duration  `yaml:"jitter,omitempty"`
	Groups       [][]string `yaml:"groups,omitempty"` // partition sides
	RestartAfter *Duration  `yaml:"restart_after,omitempty"`
	KeepData     *bool      `yaml:"keep_data,omitempty"`
	// random: the kinds it mixes, how long each fault and each calm lasts,
	// and its own seed (default: the backend's kinds, the TTL, the run's).
	Kinds    []vocab.Kind `yaml:"kinds,omitempty,flow"`
	Interval *Duration    `yaml:"interval,omitempty"`
	Seed     *uint64      `yaml:"seed,omitempty"`
	// cluster-failover: default, force or takeover (CLUSTER FAILOVER's).
	Mode *string `yaml:"mode,omitempty"`
}

// PointSpec names the nth time a client reaches a point. Client defaults to
// the fault's own client and Nth to 1.
type PointSpec struct {
	Client *int   `yaml:"client,omitempty"`
	Point  string `yaml:"point"`
	Nth    *int   `yaml:"nth,omitempty"`
}

// Algorithms lists the designs a run of this scenario covers by default: the
// ones it names (every registered design when it names none), less those it
// expects as skip or that cannot play it (see Expect, which gives the
// reason). A design that behaves like a named one (lock.Info.Like) is not
// run by default but is covered (Covers): the matrix runs it, and --algos
// names it.
func (s *Scenario) Algorithms() []string {
	names := []string(s.Algorithm)
	if len(names) == 0 {
		names = lock.Names()
	}
	var out []string
	for _, n := range names {
		if e, ok := s.Expect(n); ok && e.Verdict == vocab.Skip {
			continue
		}
		out = append(out, n)
	}
	return out
}

// Expect returns what the scenario expects of algo: its own entry, else the
// entry of the design algo behaves like, else the "*" entry; false when it
// expects nothing (then a run only reports). A design that cannot play the
// scenario (unavailable here; a process design where a fault needs an
// internal point or a client clock it does not read; a design that needs a
// replica, setpx-wait, where there is none) is expected as skip, with the
// reason.
func (s *Scenario) Expect(algo string) (Expectation, bool) {
	if info, err := lock.Lookup(algo); err == nil && info.NeedsReplica && deref(s.Replicas) < 1 {
		return Expectation{Verdict: vocab.Skip, Reason: "no replica to acknowledge its WAIT (replicas: 0)"}, true
	}
	if why := s.cannotRun(algo); why != "" {
		return Expectation{Verdict: vocab.Skip, Reason: why}, true
	}
	return s.Expectations.For(algo)
}

// FirstAsserted is the first of the scenario's designs, in its own order,
// whose expectation is a verdict (neither skip nor any): the one design a
// sample of the catalogue runs the scenario with (every scenario on
// another server, say); false when it asserts a verdict of none.
func (s *Scenario) FirstAsserted() (string, bool) {
	for _, algo := range s.Algorithms() {
		if e, ok := s.Expect(algo); ok && e.Asserted() {
			return algo, true
		}
	}
	return "", false
}

// Failover is a scenario's failover: block (sim.FailoverConfig).
type Failover struct {
	Mode            string    `yaml:"mode,omitempty"`
	DownAfter       *Duration `yaml:"down_after,omitempty"`       // [1.5s]
	FailoverTimeout *Duration `yaml:"failover_timeout,omitempty"` // [2s]
	ParallelSyncs   *int      `yaml:"parallel_syncs,omitempty"`   // [1]
}

func (f *Failover) sim() sim.FailoverConfig {
	if f == nil {
		return sim.FailoverConfig{}
	}
	return sim.FailoverConfig{Mode: sim.FailoverMode(f.Mode), DownAfter: deref(f.DownAfter).D(),
		FailoverTimeout: deref(f.FailoverTimeout).D(), ParallelSyncs: deref(f.ParallelSyncs)}
}
