package scenarios

import (
	"errors"
	"fmt"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/sim"
)

// Builders for the fault kinds beyond the client pause and crash (their
// entries are in faultKinds). Ranges that need the run's configuration
// (group names, a node count for external addresses) are checked by the
// faults' Validate when Config resolves the scenario.

// links reads the link selection shared by delay, partition and drop:
// groups, or client and/or node.
func links(f FaultSpec) (faults.Links, error) {
	l := faults.Links{Groups: f.Groups}
	if f.Client != nil {
		l.Clients = []int{*f.Client}
	}
	if f.Node != nil {
		l.Nodes = []int{*f.Node}
	}
	return l, l.CheckNames()
}

func buildClockSkewClient(f FaultSpec) (sim.Fault, error) {
	if f.Offset == nil && f.Rate == nil {
		return nil, errors.New("clock-skew-client needs offset, rate or both")
	}
	return faults.ClockSkewClient{Client: *f.Client, Offset: deref(f.Offset).D(), Rate: deref(f.Rate)}, nil
}

func buildClockJumpClient(f FaultSpec) (sim.Fault, error) {
	return faults.ClockJumpClient{Client: *f.Client, By: f.By.D()}, nil
}

func buildClockJumpNode(f FaultSpec) (sim.Fault, error) {
	if f.By.D() <= 0 {
		return nil, errors.New("clock-jump-node: by must be positive: node clocks only jump forward")
	}
	return faults.ClockJumpNode{Node: *f.Node, By: f.By.D()}, nil
}

func buildClockRateNode(f FaultSpec) (sim.Fault, error) {
	return faults.ClockRateNode{Node: *f.Node, Rate: *f.Rate}, nil
}

func buildDelay(f FaultSpec) (sim.Fault, error) {
	l, err := links(f)
	if err != nil {
		return nil, err
	}
	d := faults.Delay{Links: l, Latency: f.Latency.D(), Jitter: deref(f.Jitter).D()}
	if d.Latency <= 0 {
		return nil, errors.New("delay: latency must be positive")
	}
	return d, nil
}

func buildPartition(f FaultSpec) (sim.Fault, error) {
	l, err := links(f)
	if err != nil {
		return nil, err
	}
	return faults.Partition{Links: l}, nil
}

func buildDrop(f FaultSpec) (sim.Fault, error) {
	l, err := links(f)
	if err != nil {
		return nil, err
	}
	return faults.Drop{Links: l}, nil
}

func buildPauseNode(f FaultSpec) (sim.Fault, error) {
	// for is the schedule's; the fault also needs it on the external
	// backend, where CLIENT PAUSE takes its length up front.
	return faults.PauseNode{Node: *f.Node, For: deref(f.For).D()}, nil
}

func buildKillNode(f FaultSpec) (sim.Fault, error) {
	k := faults.KillNode{Node: *f.Node, RestartAfter: faults.StayDown, KeepData: deref(f.KeepData)}
	if f.RestartAfter != nil {
		k.RestartAfter = f.RestartAfter.D()
	}
	return k, nil
}

func buildFailover(f FaultSpec) (sim.Fault, error) {
	return faults.Failover{Node: *f.Node}, nil
}

// buildRandom: unset, the seed is the run's, the interval the lock TTL and
// the mix the backend's default kinds; faults.Random.Validate checks the
// kinds against what the backend can do.
func buildRandom(f FaultSpec) (sim.Fault, error) {
	r := faults.Random{Seed: deref(f.Seed), Kinds: f.Kinds}
	if f.Interval != nil {
		if *f.Interval <= 0 {
			return nil, fmt.Errorf("interval: must be positive; leave it out for the lock TTL (%v)", *f.Interval)
		}
		r.Interval = f.Interval.D()
	}
	if f.Kinds != nil && len(f.Kinds) == 0 {
		return nil, errors.New("kinds: empty; leave it out for the backend's default mix")
	}
	return r, nil
}
