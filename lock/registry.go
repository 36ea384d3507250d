package lock

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/internal/suggest"
)

// ErrNoStart: a design's factory could not start what the design runs on
// (a process design's child): this machine's failure, not bad input.
var ErrNoStart = errors.New("design did not start")

// Factory builds one client's Locker over the nodes (go-redis clients, one
// per Redis master). Single-node designs use nodes[0].
type Factory func(nodes []redis.UniversalClient, o Options) (Locker, error)

// Info describes a design for the CLI, the scenario catalogue and the tests.
type Info struct {
	Name     string
	Summary  string // one line: what it does
	Weakness string // one line: its known flaw, or what it still cannot promise
	Source   string // where the design comes from
	New      Factory

	MultiNode bool // uses every node (Redlock); others use nodes[0]
	DelUnlock bool // release is a plain DEL: it can remove another owner's lock
	Expires   bool // the lock has a TTL (false: a crashed holder deadlocks it)
	Reentrant bool
	ReadWrite bool // implements ReadLocker
	// SharedRead: readers share one hold, so one reader's unlock releases the
	// others' too (the flaw of the designs of 《Redis 分布式读写锁》).
	SharedRead  bool
	Fencing     bool // leases carry fencing tokens
	Watchdog    bool // honours Options.Watchdog
	Extendable  bool // implements Extender
	Peer        bool // someone else's library behind an adapter
	ClientClock bool // compares client timestamps stored in Redis
	// Notify: release is a script that publishes on the lock's channel
	// when Options.Wait is WaitNotify, and the design waits for it.
	Notify bool
	// NeedsReplica: the design asks a replica to acknowledge (WAIT), so a
	// scenario without replicas does not apply to it.
	NeedsReplica bool

	// Process: the design runs as a child process per client (package
	// adapter); its internal steps are out of reach, so faults can target
	// only the client loop's points and the points in Points.
	Process bool
	// Cluster: a process design whose child also takes a Redis Cluster:
	// the cluster's seed addresses and the map of the addresses the
	// cluster announces to the ones to dial (package adapter's hello).
	Cluster bool
	// Like names the built-in design this one should behave like: a
	// scenario that names Like, or expects something of it, covers this
	// design too unless it says otherwise.
	Like string
	// ClockFaults says whether client clock faults reach a process
	// design's own clock (a Go design reads the injected clock, always
	// reached): nil, never (its runtime does not honour libfaketime);
	// else why not on this machine, "" when they do.
	ClockFaults func() string
	// Points are the internal points the design announces through
	// Options.Hook, beyond the built-in designs' (lock.Points): an outside
	// lock's own steps that faults may then target.
	Points []Point
	// Unavailable says why the design cannot run on this machine ("" when
	// it can): a missing interpreter or package. nil means always available.
	Unavailable func() string
}

// Missing is Unavailable's answer, "" for a design that can run here.
func (i Info) Missing() string {
	if i.Unavailable == nil {
		return ""
	}
	return i.Unavailable()
}

// ClockUnreached says why client clock faults would not reach the
// design's clock ("" when they do): every Go design reads the injected
// clock; a process design says so itself.
func (i Info) ClockUnreached() string {
	switch {
	case !i.Process:
		return ""
	case i.ClockFaults == nil:
		return "its child reads a clock locksim cannot move"
	}
	return i.ClockFaults()
}

// order is the canonical catalogue order; designs register themselves.
var order = []string{
	"naive", "setnx-expire", "setnx-getset", "lua-setnx", "lua-setnx-del",
	"setpx", "setpx-del", "setpx-wait", "reentrant", "rwlock", "rwlock-hash", "rwlock-counted",
	"redlock", "fenced", "redsync", "redislock",
}

var registry = map[string]Info{}

// builtins is how many names of order are package lock's own designs.
var builtins = len(order)

// Builtin reports whether name is one of package lock's own designs or
// their variants, which every locksim binary knows; a design added with
// Register is known only to the program that registered it.
func Builtin(name string) bool { return slices.Contains(order[:builtins], name) || IsVariant(name) }

func register(i Info) {
	if _, dup := registry[i.Name]; dup || !slices.Contains(order, i.Name) {
		panic("lock: bad or duplicate registration " + i.Name)
	}
	registry[i.Name] = i
}

// Register adds a design that is not built in: an application's own lock
// to run through the simulator and the checker, or a deliberately broken
// one in a test. Call it before any run (from an init function); the name
// must be new. Such designs follow the built-in ones in Algorithms.
func Register(i Info) error {
	switch {
	case i.Name == "" || strings.ContainsAny(i.Name, " ,\t\n"):
		return fmt.Errorf("lock: register: bad name %q", i.Name)
	case i.New == nil:
		return fmt.Errorf("lock: register %q: no factory (Info.New)", i.Name)
	}
	if _, dup := registry[i.Name]; dup {
		return fmt.Errorf("lock: register %q: already registered", i.Name)
	}
	registry[i.Name] = i
	order = append(order, i.Name)
	return nil
}

// A PrefixFactory resolves a design named prefix:arg (process:./my-adapter)
// that is not registered by name.
type PrefixFactory func(arg string) (Info, error)

var prefixes = map[string]PrefixFactory{}

// RegisterPrefix lets names of the form prefix:arg resolve through f, for
// designs made up on the command line (package adapter's process:CMD).
func RegisterPrefix(prefix string, f PrefixFactory) error {
	if prefix == "" || strings.ContainsAny(prefix, ": ,\t\n") {
		return fmt.Errorf("lock: register prefix: bad prefix %q", prefix)
	}
	if _, dup := prefixes[prefix]; dup {
		return fmt.Errorf("lock: register prefix %q: already registered", prefix)
	}
	prefixes[prefix] = f
	return nil
}

// A Pinned library runs at any of its listed published versions, each a
// design named library@version that is resolved on lookup rather than
// registered, so that the catalogue's default design lists stay the
// built-in and registered ones (package adapter's redsync@v4.12.0).
type Pinned struct {
	Library  string
	Versions []string
	New      func(version string) Info
}

var pinned []Pinned

// RegisterPinned lets names library@version resolve through p.New for each
// of p.Versions.
func RegisterPinned(p Pinned) error {
	if p.Library == "" || strings.ContainsAny(p.Library, "@: ,\t\n") || p.New == nil {
		return fmt.Errorf("lock: register pinned: bad library %q", p.Library)
	}
	for _, q := range pinned {
		if q.Library == p.Library {
			return fmt.Errorf("lock: register pinned %q: already registered", p.Library)
		}
	}
	pinned = append(pinned, p)
	return nil
}

// PinnedNames lists every library@version design, in registration order.
func PinnedNames() []string {
	var out []string
	for _, p := range pinned {
		for _, v := range p.Versions {
			out = append(out, p.Library+"@"+v)
		}
	}
	return out
}

// lookupPinned resolves library@version, or says which versions there are.
func lookupPinned(name string) (Info, bool, error) {
	lib, v, found := strings.Cut(name, "@")
	if !found {
		return Info{}, false, nil
	}
	for _, p := range pinned {
		if p.Library != lib {
			continue
		}
		if !slices.Contains(p.Versions, v) {
			return Info{}, true, fmt.Errorf("unknown version %q of %s (pinned: %s)", v, lib, strings.Join(p.Versions, ", "))
		}
		return p.New(v), true, nil
	}
	return Info{}, false, nil
}

// Algorithms lists every registered design in catalogue order.
func Algorithms() []Info {
	out := make([]Info, 0, len(registry))
	for _, n := range order {
		if i, ok := registry[n]; ok {
			out = append(out, i)
		}
	}
	return out
}

// Lookup finds a design by name.
func Lookup(name string) (Info, error) {
	i, ok := registry[name]
	if !ok {
		if i, found, err := lookupPinned(name); found {
			return i, err
		}
		if p, arg, found := strings.Cut(name, ":"); found {
			if f, ok := prefixes[p]; ok {
				return f(arg)
			}
		}
		if hint := suggest.Hint(name, slices.Concat(Names(), variantNames)); hint != "" {
			return Info{}, fmt.Errorf("unknown algorithm %q%s", name, hint)
		}
		return Info{}, fmt.Errorf("unknown algorithm %q (see 'locksim algos')", name)
	}
	return i, nil
}

// Names lists the registered design names in catalogue order.
func Names() []string {
	var out []string
	for _, i := range Algorithms() {
		out = append(out, i.Name)
	}
	return out
}

// New builds the named design with defaults filled in and options checked.
func New(name string, nodes []redis.UniversalClient, o Options) (Locker, error) {
	i, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: no Redis nodes given", name)
	}
	o = o.Defaulted()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if i.MultiNode && o.NodeTimeout == 0 {
		o.NodeTimeout = DefaultNodeTimeout(o.TTL)
	}
	if o.Watchdog && !i.Watchdog {
		return nil, fmt.Errorf("%s: watchdog: this design has no watchdog", name)
	}
	if o.Wait == WaitNotify && !i.Notify {
		return nil, fmt.Errorf("%s: wait notify: only designs whose release is a script can publish the unlock (setpx, reentrant, fenced, rwlock-counted)", name)
	}
	return i.New(nodes, o)
}
