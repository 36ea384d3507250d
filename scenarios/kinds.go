package scenarios

import (
	"time"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// A fault kind's schema and build are its entry in the faults registry
// (faults.Lookup): the parser checks, before the entry builds the fault,
// that the required fields are there, that no field outside required,
// optional and the trigger is, and that client and node indexes are in
// range.

// designKinds are the fault kinds the scenario schema names. Those without
// a registry entry are refused as not supported yet, never ignored: a
// scenario whose fault silently did nothing would report a false safe.
var designKinds = vocab.Kinds()

// faultFields are the fields of a fault entry other than kind and the
// trigger (at, when), in schema order.
var faultFields = []string{
	"client", "node", "for", "until", "by", "offset", "rate", "latency",
	"jitter", "groups", "restart_after", "keep_data", "kinds", "interval", "seed", "mode",
}

// Spec is the entry's kind-specific fields, as the faults registry reads
// them.
func (f FaultSpec) Spec() faults.Spec {
	return faults.Spec{
		Client: f.Client, Node: f.Node, For: durOf(f.For), By: durOf(f.By), Offset: durOf(f.Offset),
		Rate: f.Rate, Latency: durOf(f.Latency), Jitter: durOf(f.Jitter), Groups: f.Groups,
		RestartAfter: durOf(f.RestartAfter), KeepData: f.KeepData, Kinds: f.Kinds,
		Interval: durOf(f.Interval), Seed: f.Seed, Mode: f.Mode,
	}
}

// SetSpec sets the entry's kind-specific fields to s's.
func (f *FaultSpec) SetSpec(s faults.Spec) {
	f.Client, f.Node, f.For, f.By, f.Offset = s.Client, s.Node, durTo(s.For), durTo(s.By), durTo(s.Offset)
	f.Rate, f.Latency, f.Jitter, f.Groups = s.Rate, durTo(s.Latency), durTo(s.Jitter), s.Groups
	f.RestartAfter, f.KeepData, f.Kinds = durTo(s.RestartAfter), s.KeepData, s.Kinds
	f.Interval, f.Seed, f.Mode = durTo(s.Interval), s.Seed, s.Mode
}

// build is the entry's fault, as its kind's registry entry builds it.
func (f FaultSpec) build(e faults.Entry) (sim.Fault, error) { return e.Build(f.Spec()) }

func durOf(d *Duration) *time.Duration {
	if d == nil {
		return nil
	}
	x := d.D()
	return &x
}

func durTo(d *time.Duration) *Duration {
	if d == nil {
		return nil
	}
	x := Duration(*d)
	return &x
}
