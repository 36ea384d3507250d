package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// cell is the designs that share one (nodes, clients, contention) setting.
// They run interleaved, so that their numbers are comparable.
type cell struct {
	nodes      int
	clients    int
	contention Contention
	designs    []string
}

func (c cell) String() string {
	return fmt.Sprintf("%d clients, %s, %s", c.clients, c.contention, nodesText(c.nodes))
}

func nodesText(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

// multiNode reports whether a design uses every node (Raw runs at every
// size, see runsAt).
func multiNode(algo string) bool {
	if algo == Raw {
		return false
	}
	i, err := lock.Lookup(algo)
	return err == nil && i.MultiNode
}

// runsAt reports whether algo belongs at a cluster of n nodes: single-node
// designs at one node only (more would be idle), multi-node designs at two
// or more, and Raw at every size (at n nodes it is the bare majority
// fan-out, the limit of the multi-node designs there). On a Redis Cluster
// of n masters, which is one lock service sharding the keys, the
// single-node designs and Raw (one SET NX PX and one compare-and-delete
// through the cluster client) run, and the multi-node ones do not:
// Redlock's nodes are independent masters, not one cluster's.
func (c Config) runsAt(algo string, n int) bool {
	if c.Backend == sim.BackendRedisCluster {
		return !multiNode(algo)
	}
	if algo == Raw {
		return true
	}
	if multiNode(algo) {
		return n >= 2
	}
	return n == 1
}

// plan lists the cells of a sweep: contention, then nodes, then clients, in
// the order the config gives them.
func plan(c Config) []cell {
	var cells []cell
	for _, m := range c.Contention {
		for _, n := range c.Nodes {
			var designs []string
			for _, a := range c.Algorithms {
				if c.runsAt(a, n) {
					designs = append(designs, a)
				}
			}
			if len(designs) == 0 {
				continue
			}
			for _, k := range c.Clients {
				cells = append(cells, cell{nodes: n, clients: k, contention: m, designs: designs})
			}
		}
	}
	return cells
}

// unplanned lists the designs the sweep leaves out, with why.
func unplanned(c Config) []string {
	var notes []string
	for _, a := range c.Algorithms {
		if !slices.ContainsFunc(c.Nodes, func(n int) bool { return c.runsAt(a, n) }) {
			if c.Backend == sim.BackendRedisCluster {
				notes = append(notes, fmt.Sprintf("%s not measured: on %s one lock key lives on one master, and Redlock needs independent masters", a, c.Backend))
				continue
			}
			want := "1"
			if multiNode(a) {
				want = "2 or more"
			}
			notes = append(notes, fmt.Sprintf("%s not measured: it runs at %s nodes, and --nodes gave %v", a, want, c.Nodes))
		}
	}
	return notes
}

// Size tells how many configurations a sweep measures and about how long it
// takes (measured time, warm-ups and the server limit; starting the nodes
// comes on top).
func (c Config) Size() (configs int, estimate time.Duration) {
	c = c.withDefaults()
	if len(c.Under) > 0 {
		for _, u := range c.Under {
			// a configuration Resolve refuses does not run
			if spec, err := u.Resolve(); err == nil {
				estimate += spec.Config().Duration
			}
		}
		return len(c.Under), estimate
	}
	for _, cl := range plan(c) {
		configs += len(cl.designs)
		estimate += time.Duration(len(cl.designs)) * (c.Duration + c.Warmup)
	}
	// The server limit: two phases before every cell (measureLimit).
	estimate += time.Duration(2*len(plan(c))) * limitPhase(c)
	return configs, estimate
}
