package faults

import (
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Spec is what a fault entry of a scenario file says beyond its kind and
// trigger, each field nil (or empty) when the entry leaves it out. The
// scenario loader fills it from the YAML; explore draws and enumerates it.
type Spec struct {
	Client, Node *int
	For          *time.Duration // the schedule's bound, which some kinds need up front
	By           *time.Duration
	Offset       *time.Duration
	Rate         *float64
	Latency      *time.Duration
	Jitter       *time.Duration
	Groups       [][]string
	RestartAfter *time.Duration
	KeepData     *bool
	Kinds        []vocab.Kind
	Interval     *time.Duration
	Seed         *uint64
	Mode         *string // cluster-failover: default, force or takeover
}

// Draw is what a kind's random draws get: the run's sizes, a target client
// and node already drawn, and the seeded source to draw the rest from.
type Draw struct {
	Rnd          *rand.Rand
	TTL          time.Duration
	Client, Node int
	// Between draws a whole number of milliseconds in [lo, hi]; Signed
	// flips a coin for the sign.
	Between func(lo, hi time.Duration) time.Duration
	Signed  func(time.Duration) time.Duration
	// Latency draws a delay's latency (explore's: half of them below the
	// design's node timeout).
	Latency func() time.Duration
	// Config and Interval: the run's and the nemesis's, for Random.
	Config   sim.Config
	Interval time.Duration
}

// Sizes are what an exhaustive sweep sizes a kind's variants from.
type Sizes struct {
	TTL     time.Duration
	Lengths []time.Duration // fault lengths: half and one and a half TTLs
	Steps   []time.Duration // clock steps and offsets
	Drift   float64         // the designs' clock drift factor
}

// Entry is everything specific to one fault kind: its schema, how a
// scenario entry builds it, and what a random nemesis and explore may draw
// or enumerate of it. Each kind's file registers its entry; its
// attributes (what it hits, how long it acts) are vocab's KindInfo.
type Entry struct {
	Kind     vocab.Kind
	Required []string // fields the kind cannot do without
	Optional []string // further fields it reads
	Note     string   // said when a field does not apply, if useful
	// Example is a smallest valid fault of the kind, its fields (without
	// kind and trigger) in YAML flow style: what the loader's tests parse
	// for every kind.
	Example string
	// Build turns a checked Spec into the fault; the loader has checked
	// that the required fields are there, that no other field is, and the
	// client and node indexes.
	Build func(s Spec) (sim.Fault, error)
	// Random draws one fault for the random nemesis; nil: random does not
	// mix the kind.
	Random func(d Draw) sim.Fault
	// OptIn: random and explore draw the kind only when told to (kinds:,
	// --kinds), never in their default mix.
	OptIn bool
	// Explore fills in a drawn schedule's fields of the kind from d (nil:
	// explore does not draw it).
	Explore func(d Draw, s *Spec)
	// Targets lists the (client, node) targets an exhaustive sweep gives a
	// fault of the kind, -1 for none.
	Targets func(clients, nodes int) [][2]int8
	// Variants lists the sizes and lengths a sweep tries, each as what it
	// sets on a Spec; cut marks the variant that comes with the
	// replication link cut from the start (a failover's).
	Variants func(z Sizes) []Variant
}

// Variant is one size and length of a kind in a sweep.
type Variant struct {
	Set func(s *Spec)
	Cut bool
}

var registry = map[vocab.Kind]Entry{}

// register adds a kind's entry; the kind files call it from init.
func register(e Entry) {
	if _, dup := registry[e.Kind]; dup || !e.Kind.Known() {
		panic("faults: kind " + string(e.Kind) + " registered twice or not in vocab")
	}
	registry[e.Kind] = e
}

// Lookup returns the entry of kind k.
func Lookup(k vocab.Kind) (Entry, bool) {
	e, ok := registry[k]
	return e, ok
}

// Registered lists the kinds with an entry, in vocab's order.
func Registered() []vocab.Kind {
	var out []vocab.Kind
	for _, k := range vocab.Kinds() {
		if _, ok := registry[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// RandomKinds are the kinds Random and explore mix by default, in vocab's
// order.
func RandomKinds() []vocab.Kind {
	var out []vocab.Kind
	for _, k := range vocab.Kinds() {
		if e, ok := registry[k]; ok && e.Random != nil && !e.OptIn {
			out = append(out, k)
		}
	}
	return out
}

// DrawableKinds are the kinds Random and explore can draw when told to:
// RandomKinds and the opt-in ones.
func DrawableKinds() []vocab.Kind {
	var out []vocab.Kind
	for _, k := range vocab.Kinds() {
		if e, ok := registry[k]; ok && e.Random != nil {
			out = append(out, k)
		}
	}
	return out
}

// clientTargets: each client, no node.
func clientTargets(clients, _ int) [][2]int8 {
	var out [][2]int8
	for c := range clients {
		out = append(out, [2]int8{int8(c), -1})
	}
	return out
}

// nodeTargets: each node, no client.
func nodeTargets(_, nodes int) [][2]int8 {
	var out [][2]int8
	for n := range nodes {
		out = append(out, [2]int8{-1, int8(n)})
	}
	return out
}

// eachLength is one variant per length, each setting what set sets and
// the length as For.
func eachLength(z Sizes, set func(s *Spec)) []Variant {
	var out []Variant
	for _, l := range z.Lengths {
		out = append(out, Variant{Set: func(s *Spec) { set(s); s.For = ptr(l) }})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
