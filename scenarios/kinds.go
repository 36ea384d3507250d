package scenarios

import (
	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// A faultKind turns a checked FaultSpec into a sim.Fault. Adding a kind is
// one entry in faultKinds and its build function: the parser checks, before
// build runs, that the required fields are there, that no field outside
// required, optional and the trigger is, and that client and node indexes are
// in range.
type faultKind struct {
	required []string // fields the kind cannot do without
	optional []string // further fields it reads
	note     string   // said when a field does not apply, if useful
	build    func(f FaultSpec) (sim.Fault, error)
}

// faultKinds are the kinds locksim can run so far.
var faultKinds = map[vocab.Kind]faultKind{
	vocab.KindPauseClient: {
		required: []string{"client"},
		optional: []string{"for", "until"},
		build: func(f FaultSpec) (sim.Fault, error) {
			return faults.PauseClient{Client: *f.Client}, nil
		},
	},
	vocab.KindCrashClient: {
		required: []string{"client"},
		note:     "a crash is forever",
		build: func(f FaultSpec) (sim.Fault, error) {
			return faults.CrashClient{Client: *f.Client}, nil
		},
	},
	// The kinds below build in kinds_faults.go.
	vocab.KindClockSkewClient: {
		required: []string{"client"},
		optional: []string{"offset", "rate", "for", "until"},
		build:    buildClockSkewClient,
	},
	vocab.KindClockJumpClient: {
		required: []string{"client", "by"},
		optional: []string{"for", "until"},
		build:    buildClockJumpClient,
	},
	vocab.KindClockJumpNode: {
		required: []string{"node", "by"},
		note:     "a node clock does not step back, so the jump has no end",
		build:    buildClockJumpNode,
	},
	vocab.KindClockRateNode: {
		required: []string{"node", "rate"},
		optional: []string{"for", "until"},
		build:    buildClockRateNode,
	},
	vocab.KindDelay: {
		required: []string{"latency"},
		optional: []string{"client", "node", "groups", "jitter", "for", "until"},
		build:    buildDelay,
	},
	vocab.KindPartition: {
		optional: []string{"client", "node", "groups", "for", "until"},
		build:    buildPartition,
	},
	vocab.KindDrop: {
		optional: []string{"client", "node", "groups", "for", "until"},
		build:    buildDrop,
	},
	vocab.KindPauseNode: {
		required: []string{"node"},
		optional: []string{"for", "until"},
		build:    buildPauseNode,
	},
	vocab.KindKillNode: {
		required: []string{"node"},
		optional: []string{"restart_after", "keep_data", "for", "until"},
		build:    buildKillNode,
	},
	vocab.KindFailover: {
		required: []string{"node"},
		optional: []string{"for", "until"},
		build:    buildFailover,
	},
	vocab.KindRandom: {
		optional: []string{"kinds", "interval", "seed", "for", "until"},
		note:     "random draws its targets itself (seeded by the scenario's seed)",
		build:    buildRandom,
	},
}

// designKinds are the fault kinds the scenario schema names. Those without an
// entry in faultKinds are refused as not supported yet, never ignored: a
// scenario whose fault silently did nothing would report a false safe.
var designKinds = vocab.Kinds()

// faultFields are the fields of a fault entry other than kind and the
// trigger (at, when), in schema order.
var faultFields = []string{
	"client", "node", "for", "until", "by", "offset", "rate", "latency",
	"jitter", "groups", "restart_after", "keep_data", "kinds", "interval", "seed",
}
