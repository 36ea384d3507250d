package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/vocab"
)

// Family is the kind of trouble a scenario puts a lock through, the rows a
// design review compares designs by. A scenario's family follows from its
// faults (FamilyOf); a file's family: field overrides it.
type Family string

// The families, in the order a review shows them.
const (
	FamilyClientPause Family = "client-pause"
	FamilyClientClock Family = "client-clock"
	FamilyNodeClock   Family = "node-clock"
	FamilyRestart     Family = "restart-without-data"
	FamilyFailover    Family = "failover"
	FamilyNetwork     Family = "network"
	FamilyCrash       Family = "crash"
	FamilyControl     Family = "control"
)

// Families lists every family in the order a review shows them.
func Families() []Family {
	return []Family{FamilyClientPause, FamilyClientClock, FamilyNodeClock, FamilyRestart,
		FamilyFailover, FamilyNetwork, FamilyCrash, FamilyControl}
}

// Title is the family in words, as a table heading says it.
func (f Family) Title() string {
	switch f {
	case FamilyClientPause:
		return "client pause"
	case FamilyClientClock:
		return "client clock"
	case FamilyNodeClock:
		return "node clock"
	case FamilyRestart:
		return "restart without data"
	case FamilyFailover:
		return "failover"
	case FamilyNetwork:
		return "network"
	case FamilyCrash:
		return "crash"
	case FamilyControl:
		return "contention control"
	}
	return string(f)
}

// ParseFamily accepts a family's name.
func ParseFamily(s string) (Family, error) {
	for _, f := range Families() {
		if string(f) == s {
			return f, nil
		}
	}
	var names []string
	for _, f := range Families() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown family %q (want one of %s)", s, strings.Join(names, ", "))
}

// faultRank orders what one fault stands for, most telling first: when a
// scenario has several faults, the one highest here names its family. A
// failover loses whatever the replica had not received (a cluster's
// reshard moves the key to another master the same way), a restart without
// data loses every key, a node clock moves expiry under the holder, a
// client clock moves its validity arithmetic; a node that crashes and
// keeps its data, a network fault and a client pause inside the lease
// follow (a pause only when it can outlast the lease: not a start gate,
// not bounded by a for: under the TTL alone); a client crash is last, since scenarios also crash a client only
// to keep its late release out of the run.
var faultRank = []struct {
	family Family
	match  func(f rankedFault) bool
}{
	// a replica promoted (Sentinel's failover, a cluster's election), or
	// the lock key's slot handed to another master
	{FamilyFailover, func(f rankedFault) bool { return f.Kind.Attrs().Promotes || f.Kind == vocab.KindClusterReshard }},
	{FamilyRestart, func(f rankedFault) bool { return f.Kind == vocab.KindKillNode && !deref(f.KeepData) }},
	{FamilyNodeClock, kindIs(vocab.KindClockJumpNode, vocab.KindClockRateNode)},
	{FamilyClientClock, kindIs(vocab.KindClockSkewClient, vocab.KindClockJumpClient)},
	{FamilyCrash, kindIs(vocab.KindKillNode)}, // a node that restarts with its data
	{FamilyNetwork, kindIs(vocab.KindDelay, vocab.KindPartition, vocab.KindDrop, vocab.KindPauseNode, vocab.KindSlowNode, vocab.KindClusterCutReplication)},
	{FamilyClientPause, func(f rankedFault) bool { return f.Kind == vocab.KindPauseClient && !startGate(f) && !f.short }},
	{FamilyCrash, kindIs(vocab.KindCrashClient)},
}

// rankedFault is a fault as the rule sees it; short marks a pause that
// ends within the lease whatever happens.
type rankedFault struct {
	FaultSpec
	short bool
}

func kindIs(kinds ...vocab.Kind) func(rankedFault) bool {
	return func(f rankedFault) bool { return slices.Contains(kinds, f.Kind) }
}

// startGate reports whether a client pause only holds a client back before
// it acquires (when: before-acquire): the client holds no lease then, so
// the pause orders the clients rather than stalls a holder.
func startGate(f rankedFault) bool {
	return f.When != nil && f.When.Point == string(vocab.PointBeforeAcquire)
}

// FamilyOf is the scenario's family: its family: field when it has one,
// else the family of its highest-ranked fault (faultRank), and
// FamilyControl for a scenario without a fault beyond start gates and
// short pauses. A
// random fault counts as every kind it may draw (its kinds, or all of
// faults.RandomKinds()), and kill-node among them as one that may lose data.
func FamilyOf(s *Scenario) Family {
	if s.Family != "" {
		return Family(s.Family)
	}
	ttl := deref(s.Options.TTL).D()
	if ttl == 0 {
		ttl = defaults().Options.TTL
	}
	var specs []rankedFault
	for _, f := range s.Faults {
		if f.Kind != vocab.KindRandom {
			// A pause bounded by a for: shorter than the TTL, and by
			// nothing else, ends within every lease.
			short := f.For != nil && f.Until == nil && f.For.D() < ttl
			specs = append(specs, rankedFault{f, short})
			continue
		}
		kinds := f.Kinds
		if len(kinds) == 0 {
			kinds = faults.RandomKinds()
		}
		for _, k := range kinds {
			specs = append(specs, rankedFault{FaultSpec: FaultSpec{Kind: k}})
		}
	}
	for _, r := range faultRank {
		if slices.ContainsFunc(specs, r.match) {
			return r.family
		}
	}
	return FamilyControl
}

// checkFamily validates the family: field.
func (s *Scenario) checkFamily() error {
	if s.Family == "" {
		return nil
	}
	if _, err := ParseFamily(s.Family); err != nil {
		return s.errf("family", "%v", err)
	}
	return nil
}
