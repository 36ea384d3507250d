package faults

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/vocab"
)

// ClockJumpNode moves a node's clock forward by By: keys whose remaining
// TTL is at most By expire at once, the others lose By. Exact on miniredis;
// on redis-server emulated by shifting every key's TTL (the node reports
// it). Healing does nothing: a node clock does not step back, and what
// expired stays expired.
type ClockJumpNode struct {
	Node int
	By   time.Duration
}

func (f ClockJumpNode) String() string { return fmt.Sprintf("clock-jump-node %d by +%v", f.Node, f.By) }

func (f ClockJumpNode) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	if err := processControl(vocab.KindClockJumpNode, cfg); err != nil {
		return err
	}
	if f.By <= 0 {
		return fmt.Errorf("by %v: node clocks only jump forward (slow one down with clock-rate-node)", f.By)
	}
	return nil
}

func (f ClockJumpNode) Start(w *sim.World) error {
	n, err := clockOf(w, f.Node)
	if err != nil {
		return err
	}
	return n.JumpClock(f.By)
}

// clockOf is node i's clock control, or why the node has none.
func clockOf(w *sim.World, i int) (node.ClockController, error) {
	n, err := w.Node(i)
	if err != nil {
		return nil, err
	}
	return node.Capable[node.ClockController](n, "move its clock")
}

func (ClockJumpNode) Stop(*sim.World) error { return nil }

// ClockRateNode makes a node's clock run at Rate times true time (2 expires
// keys twice as fast, 0 freezes expiry) until healed, when it runs at 1
// again (keeping what it gained or lost).
type ClockRateNode struct {
	Node int
	Rate float64
}

func (f ClockRateNode) String() string {
	return fmt.Sprintf("clock-rate-node %d at %gx", f.Node, f.Rate)
}

func (f ClockRateNode) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	if err := processControl(vocab.KindClockRateNode, cfg); err != nil {
		return err
	}
	switch {
	case f.Rate < 0 || math.IsNaN(f.Rate) || math.IsInf(f.Rate, 0):
		return fmt.Errorf("rate %v: must be a finite number >= 0", f.Rate)
	case f.Rate == 1:
		return errors.New("rate 1: the clock would run as it does")
	}
	return nil
}

func (f ClockRateNode) Start(w *sim.World) error {
	n, err := clockOf(w, f.Node)
	if err != nil {
		return err
	}
	return n.SetClockRate(f.Rate)
}

func (f ClockRateNode) Stop(w *sim.World) error {
	n, err := clockOf(w, f.Node)
	if err != nil {
		return err
	}
	return n.SetClockRate(1)
}

// PauseNode stops a node answering, as SIGSTOP does (a hung VM, a long
// fork): commands sent meanwhile run when it resumes. miniredis: a pre-hook
// gate; redis: SIGSTOP/SIGCONT; external: CLIENT PAUSE For ALL, which cannot
// be lifted early, so there the pause needs For and ends by itself.
type PauseNode struct {
	Node int
	For  time.Duration // the pause's length; needed on external only
}

func (f PauseNode) String() string {
	if f.For > 0 {
		return fmt.Sprintf("pause-node %d for %v", f.Node, f.For)
	}
	return fmt.Sprintf("pause-node %d", f.Node)
}

func (f PauseNode) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	if f.For < 0 {
		return fmt.Errorf("for %v: must not be negative", f.For)
	}
	if cfg.Cluster.Backend != sim.BackendExternal {
		return nil
	}
	if f.For < time.Millisecond {
		return errors.New("pause-node on the external backend needs for: CLIENT PAUSE ALL holds CLIENT UNPAUSE too, so the pause's length is given up front")
	}
	for _, p := range cfg.Faults {
		if p.Fault == sim.Fault(f) && p.Until != nil {
			return errors.New("pause-node on the external backend cannot end at a point (until): CLIENT PAUSE ALL cannot be lifted early")
		}
	}
	return nil
}

func (f PauseNode) Start(w *sim.World) error {
	n, err := w.Node(f.Node)
	if err != nil {
		return err
	}
	switch p := n.(type) {
	case node.Pauser:
		err = p.Pause()
	case node.TimedPauser:
		err = p.PauseFor(f.For) // it ends by itself
	default:
		_, err = node.Capable[node.Pauser](n, "be paused")
	}
	if err != nil {
		return err
	}
	w.Stash(f.String(), n) // resume this one, even if a failover replaced it
	return nil
}

func (f PauseNode) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	if p, ok := v.(node.Pauser); ok {
		return p.Resume()
	}
	return nil // a timed pause ends by itself
}

// StayDown as KillNode.RestartAfter keeps a killed node down until the
// fault heals.
const StayDown time.Duration = -1

// KillNode crashes a node (miniredis: server closed; redis: kill -9). It
// comes back RestartAfter later (0: at once), or with StayDown when the
// fault heals, on the same address. KeepData false: empty (miniredis is
// flushed, redis's files wiped), like a server that never fsynced. KeepData
// true: miniredis keeps everything; redis keeps what its persistence setting
// wrote (none: nothing; everysec: up to about a second less; always: every
// acknowledged write).
type KillNode struct {
	Node         int
	RestartAfter time.Duration
	KeepData     bool
}

// KeepsData: on redis-server a restart that keeps its data needs
// persistence always, which sim.Config.Resolve then picks.
func (f KillNode) KeepsData() bool { return f.KeepData }

func (f KillNode) String() string {
	s := fmt.Sprintf("kill-node %d (", f.Node)
	switch {
	case f.RestartAfter < 0:
		s += "down until healed"
	case f.RestartAfter == 0:
		s += "restart at once"
	default:
		s += fmt.Sprintf("restart after %v", f.RestartAfter)
	}
	if f.KeepData {
		return s + ", keep data)"
	}
	return s + ", lose data)"
}

func (f KillNode) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	return processControl(vocab.KindKillNode, cfg)
}

// killed is what a KillNode's Stop needs: the node it killed and its
// pending restart.
type killed struct {
	node    node.ProcessController
	restart *pending
}

func (f KillNode) Start(w *sim.World) error {
	nd, err := w.Node(f.Node)
	if err != nil {
		return err
	}
	n, err := node.Capable[node.ProcessController](nd, "be killed")
	if err != nil {
		return err
	}
	// Its proxies' toxics wait for its connections to unwind (see
	// network.Network.Ending).
	w.Cluster().Network().Ending(network.NodeEnd(f.Node))
	if err := n.Kill(); err != nil {
		return err
	}
	k := killed{node: n}
	if f.RestartAfter >= 0 {
		k.restart = after(w, f.String(), f.RestartAfter, func() error { return restart(n, f.KeepData) })
	}
	w.Stash(f.String(), k)
	return nil
}

func (f KillNode) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	k := v.(killed)
	var timed error
	if k.restart != nil {
		timed = k.restart.cancel()
	}
	if err := restart(k.node, f.KeepData); err != nil {
		return errors.Join(timed, err)
	}
	if timed != nil {
		return fmt.Errorf("restart after %v failed (the node came back only at the heal): %w", f.RestartAfter, timed)
	}
	return nil
}

// restart brings n back unless something else already did.
func restart(n node.ProcessController, keepData bool) error {
	if n.Up() {
		return nil
	}
	if err := n.Restart(keepData); err != nil && !errors.Is(err, node.ErrNodeRunning) {
		return err
	}
	return nil
}

// Failover replaces a node's master by its replica (needs replicas: 1).
// redis: the master is killed, the replica promoted and clients redirected;
// what replication had not delivered is lost (delay or cut the link
// r<i> <-> n<i> to make sure something is). miniredis: emulated as the node
// losing the keys written since its virtual replication link last
// delivered. Healing brings the old master back as the new one's replica
// (redis). See sim.Cluster.Failover.
type Failover struct{ Node int }

func (f Failover) String() string { return fmt.Sprintf("failover %d", f.Node) }

func (f Failover) Validate(cfg sim.Config) error {
	if err := nodeInRange(f.Node, cfg); err != nil {
		return err
	}
	if err := processControl(vocab.KindFailover, cfg); err != nil {
		return err
	}
	if cfg.Cluster.Replicas < 1 {
		return errors.New("failover needs a replica per master (replicas: 1)")
	}
	return nil
}

func (f Failover) Start(w *sim.World) error {
	_, err := w.Cluster().Failover(f.Node)
	return err
}

func (f Failover) Stop(w *sim.World) error { return w.Cluster().Rejoin(f.Node) }

// UsesNetwork: on redis the failover redirects the clients' proxies.
func (Failover) UsesNetwork(cfg sim.Config) bool { return cfg.Cluster.Backend == sim.BackendRedis }

func nodeInRange(i int, cfg sim.Config) error {
	return sim.CheckIndex("node", i, cfg.Cluster.Nodes, "nodes")
}

// processControl refuses a fault that needs to run, stop or re-clock the
// servers on a backend whose servers are not the harness's.
func processControl(kind vocab.Kind, cfg sim.Config) error {
	if cfg.Cluster.Backend == sim.BackendExternal {
		return fmt.Errorf("%s needs process control, which the external backend does not give (it supports network faults and pause-node)", kind)
	}
	return nil
}

// pending is a function due later that can be cancelled or waited for.
type pending struct {
	t    *time.Timer
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func after(w *sim.World, name string, d time.Duration, f func() error) *pending {
	p := &pending{done: make(chan struct{})}
	p.t = w.AfterFunc(name, d, func() {
		err := f()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.done)
	})
	return p
}

// cancel stops f if it has not started, else waits for it and returns its
// error.
func (p *pending) cancel() error {
	if p.t.Stop() {
		return nil
	}
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

var (
	_ sim.Fault       = ClockJumpNode{}
	_ sim.Validator   = ClockJumpNode{}
	_ sim.Fault       = ClockRateNode{}
	_ sim.Validator   = ClockRateNode{}
	_ sim.Fault       = PauseNode{}
	_ sim.Validator   = PauseNode{}
	_ sim.Fault       = KillNode{}
	_ sim.Validator   = KillNode{}
	_ sim.Fault       = Failover{}
	_ sim.Validator   = Failover{}
	_ sim.NetworkUser = Failover{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindClockJumpNode,
		Example:  "node: 0, by: 2s",
		Required: []string{"node", "by"},
		Note:     "a node clock does not step back, so the jump has no end",
		Build: func(s Spec) (sim.Fault, error) {
			if *s.By <= 0 {
				return nil, errors.New("clock-jump-node: by must be positive: node clocks only jump forward")
			}
			return ClockJumpNode{Node: *s.Node, By: *s.By}, nil
		},
		Random: func(d Draw) sim.Fault { return ClockJumpNode{Node: d.Node, By: d.Between(d.TTL/2, 3*d.TTL)} },
		Explore: func(d Draw, s *Spec) {
			s.Node = ptr(d.Node)
			s.By = ptr(d.Between(d.TTL/2, 3*d.TTL))
		},
		Targets: nodeTargets,
		Variants: func(z Sizes) []Variant {
			var out []Variant
			for _, st := range z.Steps {
				out = append(out, Variant{Set: func(s *Spec) { s.By = ptr(st) }})
			}
			return out
		},
	})
	register(Entry{
		Kind:     vocab.KindClockRateNode,
		Example:  "node: 0, rate: 2",
		Required: []string{"node", "rate"},
		Optional: []string{"for", "until"},
		Build:    func(s Spec) (sim.Fault, error) { return ClockRateNode{Node: *s.Node, Rate: *s.Rate}, nil },
		Random: func(d Draw) sim.Fault {
			rates := []float64{0.5, 2, 4}
			return ClockRateNode{Node: d.Node, Rate: rates[d.Rnd.IntN(len(rates))]}
		},
		Explore: func(d Draw, s *Spec) {
			s.Node = ptr(d.Node)
			rates := []float64{0.5, 2, 4}
			s.Rate = ptr(rates[d.Rnd.IntN(len(rates))])
		},
		Targets: nodeTargets,
		Variants: func(z Sizes) []Variant {
			var out []Variant
			for _, r := range []float64{0.5, 1 + z.Drift/2, 1 + 2*z.Drift, 2} {
				out = append(out, eachLength(z, func(s *Spec) { s.Rate = ptr(r) })...)
			}
			return out
		},
	})
	register(Entry{
		Kind:     vocab.KindPauseNode,
		Example:  "node: 0, for: 100ms",
		Required: []string{"node"},
		Optional: []string{"for", "until"},
		// for is the schedule's; the fault also needs it on the external
		// backend, where CLIENT PAUSE takes its length up front.
		Build:    func(s Spec) (sim.Fault, error) { return PauseNode{Node: *s.Node, For: deref(s.For)}, nil },
		Random:   func(d Draw) sim.Fault { return PauseNode{Node: d.Node, For: d.Interval} },
		Explore:  func(d Draw, s *Spec) { s.Node = ptr(d.Node) },
		Targets:  nodeTargets,
		Variants: func(z Sizes) []Variant { return eachLength(z, func(*Spec) {}) },
	})
	register(Entry{
		Kind:     vocab.KindKillNode,
		Example:  "node: 0, restart_after: 10ms",
		Required: []string{"node"},
		Optional: []string{"restart_after", "keep_data", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			k := KillNode{Node: *s.Node, RestartAfter: StayDown, KeepData: deref(s.KeepData)}
			if s.RestartAfter != nil {
				k.RestartAfter = *s.RestartAfter
			}
			return k, nil
		},
		Random: func(d Draw) sim.Fault {
			after := StayDown
			if d.Rnd.IntN(2) == 0 {
				after = d.Between(0, d.Interval)
			}
			return KillNode{Node: d.Node, RestartAfter: after, KeepData: d.Rnd.IntN(2) == 0}
		},
		Explore: func(d Draw, s *Spec) {
			s.Node = ptr(d.Node)
			if d.Rnd.IntN(2) == 0 {
				s.RestartAfter = ptr(d.Between(0, d.TTL))
			}
			s.KeepData = ptr(d.Rnd.IntN(2) == 0)
		},
		Targets: nodeTargets,
		Variants: func(z Sizes) []Variant {
			var out []Variant
			for _, r := range []time.Duration{0, ms(z.TTL / 2), ms(3 * z.TTL / 2)} {
				for _, keep := range []bool{false, true} {
					out = append(out, Variant{Set: func(s *Spec) { s.RestartAfter, s.KeepData = ptr(r), ptr(keep) }})
				}
			}
			return out
		},
	})
	register(Entry{
		Kind:     vocab.KindFailover,
		Example:  "node: 0",
		Required: []string{"node"},
		Optional: []string{"for", "until"},
		Build:    func(s Spec) (sim.Fault, error) { return Failover{Node: *s.Node}, nil },
		Random:   func(d Draw) sim.Fault { return Failover{Node: d.Node} },
		Explore:  func(_ Draw, s *Spec) { s.Node = ptr(0) }, // the master
		Targets:  func(int, int) [][2]int8 { return [][2]int8{{-1, 0}} },
		// losing every write (the replication link cut from the start)
		// and none
		Variants: func(Sizes) []Variant { return []Variant{{Set: func(*Spec) {}, Cut: true}, {Set: func(*Spec) {}}} },
	})
}

// ms rounds d to whole milliseconds, at least one.
func ms(d time.Duration) time.Duration { return max(d.Round(time.Millisecond), time.Millisecond) }
