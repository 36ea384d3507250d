package faults

import (
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// SlowNode makes a node slow to answer (a saturated disk, a noisy
// neighbour, a long fork): every command a client sends it is answered By
// late. The node's traffic carries the delay: each message on the
// clients' links to the node arrives By/2 late, each way, so the round
// trip of every command takes By longer, on every backend (through the
// same proxies as Delay).
type SlowNode struct {
	Node int
	By   time.Duration
}

func (f SlowNode) String() string { return fmt.Sprintf("slow-node %d by %v", f.Node, f.By) }

// delay is the network fault that carries the slowness.
func (f SlowNode) delay() Delay {
	return Delay{Links: Links{Nodes: []int{f.Node}}, Latency: f.By / 2}
}

func (f SlowNode) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	if f.By < 2*time.Millisecond || f.By%(2*time.Millisecond) != 0 {
		return fmt.Errorf("by %v: want an even number of milliseconds (half of it each way), at least 2ms", f.By)
	}
	return f.delay().Validate(cfg)
}

func (f SlowNode) UsesNetwork(cfg sim.Config) bool { return f.delay().UsesNetwork(cfg) }

func (f SlowNode) Start(w *sim.World) error { return f.delay().Start(w) }

func (f SlowNode) Stop(w *sim.World) error { return f.delay().Stop(w) }

func (f SlowNode) Target() history.Target {
	return history.Target{Kind: vocab.KindSlowNode, Nodes: []int{f.Node}}
}

var (
	_ sim.Fault       = SlowNode{}
	_ sim.Validator   = SlowNode{}
	_ sim.NetworkUser = SlowNode{}
	_ sim.Targeter    = SlowNode{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindSlowNode,
		Example:  "node: 0, by: 20ms",
		Required: []string{"node", "by"},
		Optional: []string{"for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			if *s.By <= 0 {
				return nil, errors.New("slow-node: by must be positive")
			}
			return SlowNode{Node: *s.Node, By: *s.By}, nil
		},
		OptIn: true,
		// a tenth of a TTL to a TTL, in even milliseconds
		Random: func(d Draw) sim.Fault { return SlowNode{Node: d.Node, By: 2 * d.Between(d.TTL/20, d.TTL/2)} },
		Explore: func(d Draw, s *Spec) {
			s.Node = ptr(d.Node)
			s.By = ptr(2 * d.Between(d.TTL/20, d.TTL/2))
		},
		Targets: nodeTargets,
		Variants: func(z Sizes) []Variant {
			var out []Variant
			for _, by := range []time.Duration{2 * ms(z.TTL/20), 2 * ms(z.TTL/4)} {
				out = append(out, eachLength(z, func(s *Spec) { s.By = ptr(by) })...)
			}
			return out
		},
	})
}
