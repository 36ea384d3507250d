package explore

import (
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// DefaultNodes is how many masters a schedule of a multi-node design runs
// on when Config.Nodes is unset; every other size and time a schedule
// leaves out is the simulator's (sim.Defaults).
const DefaultNodes = 3

// The fields of a schedule as it runs: the file's value, or the
// simulator's default when the file leaves it out.

func clientsOf(s *scenarios.Scenario) int { return deref(s.Clients, sim.Defaults().Clients) }

func nodesOf(s *scenarios.Scenario) int { return deref(s.Nodes, sim.Defaults().Cluster.Nodes) }

func durationOf(s *scenarios.Scenario) time.Duration {
	return deref(s.Duration, scenarios.Duration(sim.Defaults().Duration)).D()
}

func holdOf(s *scenarios.Scenario) time.Duration {
	return deref(s.Hold, scenarios.Duration(sim.Defaults().Hold)).D()
}

func ttlOf(s *scenarios.Scenario) time.Duration {
	return deref(s.Options.TTL, scenarios.Duration(sim.Defaults().Options.TTL)).D()
}
