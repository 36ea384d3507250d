package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// like is the built-in design algo should behave like ("" for none or an
// unknown design).
func like(algo string) string {
	if i, err := lock.Lookup(algo); err == nil {
		return i.Like
	}
	return ""
}

// names reports whether list names algo, or the design algo should behave
// like: a scenario written for setpx covers redis-py too.
func names(list []string, algo string) bool {
	if slices.Contains(list, algo) {
		return true
	}
	l := like(algo)
	return l != "" && slices.Contains(list, l)
}

// Covers reports whether the scenario applies to algo: it names no
// designs, or names algo or the design algo behaves like.
func (s *Scenario) Covers(algo string) bool {
	return len(s.Algorithm) == 0 || names(s.Algorithm, algo)
}

// cannotRun says why algo cannot play this scenario at all ("" when it
// can): the design is not available on this machine, or it is a process
// design and a fault needs what a child process does not offer (a design's
// internal point, a client clock it does not read).
func (s *Scenario) cannotRun(algo string) string {
	info, err := lock.Lookup(algo)
	if err != nil {
		return ""
	}
	if m := info.Missing(); m != "" {
		return "not available here: " + m
	}
	if _, own := s.Expectations[algo]; info.Like != "" && !own && !slices.Contains(s.Algorithm, algo) {
		// a guest in a scenario written for the design it behaves like:
		// what it lacks (a watchdog, a read lock) skips it, with the reason
		if err := s.checkDesign(algo); err != nil {
			msg := err.Error()
			var e *Error
			if errors.As(err, &e) {
				msg, _, _ = strings.Cut(e.Msg, "; list the algorithms")
			}
			return "the scenario needs what " + algo + " lacks: " + msg
		}
	}
	if !info.Process {
		return ""
	}
	if sim.Backend(s.Backend) == sim.BackendRedisCluster && !info.Cluster {
		return "backend redis-cluster: its adapter takes one address per node, not a cluster's seed addresses"
	}
	if s.Failover != nil && s.Failover.Mode == string(sim.FailoverSentinel) {
		return "failover.mode sentinel: a process design's child reaches each node at one address and cannot follow Sentinel"
	}
	loop := make([]string, 0, len(sim.LoopPoints)+len(info.Points))
	for _, p := range slices.Concat(sim.LoopPoints, info.Points, []lock.Point{vocab.PointBeforeAcquire, vocab.PointBeforeReleaseCommand}) {
		loop = append(loop, string(p))
	}
	for i, f := range s.Faults {
		for _, p := range []*PointSpec{f.When, f.Until} {
			if p != nil && !slices.Contains(loop, p.Point) {
				return fmt.Sprintf("faults[%d] needs the internal point %s, which a process design does not announce", i, p.Point)
			}
		}
		if f.Kind.Attrs().Hits == vocab.HitsClientClock {
			if why := info.ClockUnreached(); why != "" {
				return fmt.Sprintf("faults[%d] (%s) would not reach %s's own clock: %s", i, f.Kind, algo, why)
			}
		}
	}
	return ""
}
