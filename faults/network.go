package faults

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/vocab"
)

// Links chooses the network links a fault hits, in one of two ways.
//
// Groups are the sides of a partition, each a list of endpoint names: c<i>
// (client i), n<i> (node i), r<i> (node i's replica), resource; and clients,
// nodes, replicas for all of them. A link is chosen when both its ends are
// named and no group holds both. Groups may overlap, as in Kleppmann's
// Redlock setup [[c0, n0, n1, n2], [c1, n2, n3, n4]], where node 2 stays
// reachable from both clients. Endpoints no group names keep their links.
//
// Without groups: the links between Clients (empty: every client) and
// Nodes (empty: every node and the resource). Replication links are chosen
// only by naming r<i> in groups.
type Links struct {
	Clients []int
	Nodes   []int
	Groups  [][]string
}

func (l Links) String() string {
	if len(l.Groups) > 0 {
		parts := make([]string, len(l.Groups))
		for i, g := range l.Groups {
			parts[i] = "[" + strings.Join(g, " ") + "]"
		}
		return strings.Join(parts, " | ")
	}
	side := func(prefix string, ids []int, all string) string {
		if len(ids) == 0 {
			return all
		}
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = prefix + strconv.Itoa(id)
		}
		return strings.Join(s, ",")
	}
	return side("c", l.Clients, "c*") + "<->" + side("n", l.Nodes, "n*,resource")
}

// CheckNames checks the group names' spelling, without a configuration to
// check their ranges against (Select does that).
func (l Links) CheckNames() error {
	if len(l.Groups) > 0 && (len(l.Clients) > 0 || len(l.Nodes) > 0) {
		return errors.New("give groups, or clients and nodes, not both")
	}
	for _, g := range l.Groups {
		if len(g) == 0 {
			return errors.New("an empty group")
		}
		for _, name := range g {
			if wildcard(name) {
				continue
			}
			if _, err := network.ParseEndpoint(name); err != nil {
				return err
			}
		}
	}
	return nil
}

func wildcard(name string) bool {
	switch strings.ToLower(name) {
	case "clients", "nodes", "replicas":
		return true
	}
	return false
}

// Select lists the links l chooses in a world configured by cfg (defaults
// filled in). Choosing none is an error: the fault would do nothing.
func (l Links) Select(cfg sim.Config) ([]network.Link, error) {
	if err := l.CheckNames(); err != nil {
		return nil, err
	}
	all := cfg.Cluster.Links(cfg.Clients)
	var out []network.Link
	if len(l.Groups) > 0 {
		groups, err := l.expand(cfg)
		if err != nil {
			return nil, err
		}
		named := map[network.Endpoint]bool{}
		for _, g := range groups {
			for _, e := range g {
				named[e] = true
			}
		}
		for _, link := range all {
			if !named[link.From] || !named[link.To] {
				continue
			}
			together := slices.ContainsFunc(groups, func(g []network.Endpoint) bool {
				return slices.Contains(g, link.From) && slices.Contains(g, link.To)
			})
			if !together {
				out = append(out, link)
			}
		}
	} else {
		for _, c := range l.Clients {
			if err := clientInRange(c, cfg); err != nil {
				return nil, err
			}
		}
		for _, n := range l.Nodes {
			if err := nodeInRange(n, cfg); err != nil {
				return nil, err
			}
		}
		for _, link := range all {
			if link.From.Role != network.RoleClient {
				continue
			}
			if len(l.Clients) > 0 && !slices.Contains(l.Clients, link.From.Index) {
				continue
			}
			if len(l.Nodes) > 0 && (link.To.Role != network.RoleNode || !slices.Contains(l.Nodes, link.To.Index)) {
				continue
			}
			out = append(out, link)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("links %s: chooses no link", l)
	}
	return out, nil
}

// expand resolves the groups' names, checking their ranges.
func (l Links) expand(cfg sim.Config) ([][]network.Endpoint, error) {
	nodes := cfg.Cluster.Nodes
	out := make([][]network.Endpoint, len(l.Groups))
	for i, g := range l.Groups {
		for _, name := range g {
			var es []network.Endpoint
			switch strings.ToLower(name) {
			case "clients":
				for c := 0; c < cfg.Clients; c++ {
					es = append(es, network.ClientEnd(c))
				}
			case "nodes":
				for n := 0; n < nodes; n++ {
					es = append(es, network.NodeEnd(n))
				}
			case "replicas":
				if cfg.Cluster.Replicas < 1 {
					return nil, errors.New("group names replicas, but there are none (replicas: 0)")
				}
				for n := 0; n < nodes; n++ {
					es = append(es, network.ReplicaEnd(n))
				}
			default:
				e, err := network.ParseEndpoint(name)
				if err != nil {
					return nil, err
				}
				switch {
				case e.Role == network.RoleClient && e.Index >= cfg.Clients:
					return nil, fmt.Errorf("group names %s: out of range (clients: %d)", name, cfg.Clients)
				case (e.Role == network.RoleNode || e.Role == network.RoleReplica) && e.Index >= nodes:
					return nil, fmt.Errorf("group names %s: out of range (nodes: %d)", name, nodes)
				case e.Role == network.RoleReplica && cfg.Cluster.Replicas < 1:
					return nil, fmt.Errorf("group names %s, but there are no replicas (replicas: 0)", name)
				}
				es = append(es, e)
			}
			out[i] = append(out[i], es...)
		}
	}
	return out, nil
}

// usesProxies: some chosen link is a client's link to a node, which only a
// proxy can hurt.
func (l Links) usesProxies(cfg sim.Config) bool {
	links, err := l.Select(cfg)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(links, func(k network.Link) bool {
		return k.From.Role == network.RoleClient && k.To.Role == network.RoleNode
	})
}

// netFault starts f on the chosen links and keeps its id for stop.
func netFault(w *sim.World, key string, links Links, f network.LinkFault) error {
	chosen, err := links.Select(w.Config())
	if err != nil {
		return err
	}
	id, err := w.Network().Start(chosen, f)
	if err != nil {
		return err
	}
	w.Stash(key, id)
	return nil
}

func healNet(w *sim.World, key string) error {
	v, ok := w.Unstash(key)
	if !ok {
		return errors.New("not started")
	}
	return w.Network().Stop(v.(network.EffectID))
}

// Delay slows the chosen links: every message, each way, arrives Latency
// (± up to Jitter) late, so a request-reply round trip takes 2 x Latency
// longer. Through toxiproxy both are whole milliseconds. On the link to the
// resource it delays the client's writes (Kleppmann's delayed write).
type Delay struct {
	Links   Links
	Latency time.Duration
	Jitter  time.Duration
}

func (f Delay) String() string {
	s := "delay " + f.Latency.String()
	if f.Jitter > 0 {
		s += "±" + f.Jitter.String()
	}
	return s + " " + f.Links.String()
}

func (f Delay) Validate(cfg sim.Config) error {
	switch {
	case f.Latency <= 0:
		return fmt.Errorf("latency %v: must be positive", f.Latency)
	case f.Jitter < 0 || f.Jitter > f.Latency:
		return fmt.Errorf("jitter %v: must be in [0, latency]", f.Jitter)
	case f.Latency%time.Millisecond != 0 || f.Jitter%time.Millisecond != 0:
		return fmt.Errorf("latency %v, jitter %v: toxiproxy delays by whole milliseconds", f.Latency, f.Jitter)
	}
	_, err := f.Links.Select(cfg)
	return err
}

func (f Delay) UsesNetwork(cfg sim.Config) bool { return f.Links.usesProxies(cfg) }

func (f Delay) Start(w *sim.World) error {
	return netFault(w, f.String(), f.Links, network.LinkFault{Latency: f.Latency, Jitter: f.Jitter})
}

func (f Delay) Stop(w *sim.World) error { return healNet(w, f.String()) }

// Partition cuts the chosen links both ways: messages vanish without a
// reset, so requests time out. Healing closes the connections that lived
// through it; new ones work at once. On the link to the resource, writes
// are held and land at the heal.
type Partition struct{ Links Links }

func (f Partition) String() string { return "partition " + f.Links.String() }

func (f Partition) Validate(cfg sim.Config) error {
	_, err := f.Links.Select(cfg)
	return err
}

func (f Partition) UsesNetwork(cfg sim.Config) bool { return f.Links.usesProxies(cfg) }

func (f Partition) Start(w *sim.World) error {
	return netFault(w, f.String(), f.Links, network.LinkFault{Cut: true})
}

func (f Partition) Stop(w *sim.World) error { return healNet(w, f.String()) }

// Drop resets the chosen connections while in force: as soon as a node
// answers, the connection is reset and the answer lost, so the command that
// drew it ran but its client cannot know (a new connection's handshake is
// lost the same way). Only links to nodes and replication links on redis
// have connections to reset: without groups the resource is left out, and
// naming it is an error.
type Drop struct{ Links Links }

func (f Drop) String() string {
	return "drop " + strings.TrimSuffix(f.Links.String(), ",resource")
}

func (f Drop) chosen(cfg sim.Config) ([]network.Link, error) {
	links, err := f.Links.Select(cfg)
	if err != nil {
		return nil, err
	}
	var out []network.Link
	for _, l := range links {
		switch {
		case l.To == network.ResourceEnd && len(f.Links.Groups) > 0:
			return nil, fmt.Errorf("drop on %s: the resource link has no connection to reset (delay or partition it instead)", l)
		case l.To == network.ResourceEnd:
		case l.From.Role == network.RoleReplica && cfg.Cluster.Backend != sim.BackendRedis:
			return nil, fmt.Errorf("drop on %s: replication is emulated on %s and has no connection to reset", l, cfg.Cluster.Backend)
		default:
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("links %s: chooses no connection to reset", f.Links)
	}
	return out, nil
}

func (f Drop) Validate(cfg sim.Config) error {
	_, err := f.chosen(cfg)
	return err
}

func (f Drop) UsesNetwork(cfg sim.Config) bool { return f.Links.usesProxies(cfg) }

func (f Drop) Start(w *sim.World) error {
	links, err := f.chosen(w.Config())
	if err != nil {
		return err
	}
	id, err := w.Network().Start(links, network.LinkFault{Reset: true})
	if err != nil {
		return err
	}
	w.Stash(f.String(), id)
	return nil
}

func (f Drop) Stop(w *sim.World) error { return healNet(w, f.String()) }

var (
	_ sim.Fault       = Delay{}
	_ sim.Validator   = Delay{}
	_ sim.NetworkUser = Delay{}
	_ sim.Fault       = Partition{}
	_ sim.Validator   = Partition{}
	_ sim.NetworkUser = Partition{}
	_ sim.Fault       = Drop{}
	_ sim.Validator   = Drop{}
	_ sim.NetworkUser = Drop{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindDelay,
		Example:  "client: 0, latency: 10ms",
		Required: []string{"latency"},
		Optional: []string{"client", "node", "groups", "jitter", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			l, err := s.links()
			if err != nil {
				return nil, err
			}
			d := Delay{Links: l, Latency: *s.Latency, Jitter: deref(s.Jitter)}
			if d.Latency <= 0 {
				return nil, errors.New("delay: latency must be positive")
			}
			return d, nil
		},
		Random: func(d Draw) sim.Fault {
			lat := d.Between(d.TTL/10, d.TTL)
			return Delay{Links: Links{Clients: []int{d.Client}}, Latency: lat, Jitter: (lat / 4).Truncate(time.Millisecond)}
		},
		Explore: func(d Draw, s *Spec) {
			s.Client = ptr(d.Client)
			s.Latency = ptr(d.Latency())
		},
		Targets: clientTargets,
		Variants: func(z Sizes) []Variant {
			var out []Variant
			for _, l := range []time.Duration{ms(z.TTL / 10), ms(z.TTL / 2)} {
				out = append(out, eachLength(z, func(s *Spec) { s.Latency = ptr(l) })...)
			}
			return out
		},
	})
	register(Entry{
		Kind:     vocab.KindPartition,
		Example:  "groups: [[c0], [n0]]",
		Optional: []string{"client", "node", "groups", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			l, err := s.links()
			if err != nil {
				return nil, err
			}
			return Partition{Links: l}, nil
		},
		Random: func(d Draw) sim.Fault { return Partition{Links: randomSplit(d.Config, d.Rnd)} },
		Explore: func(d Draw, s *Spec) {
			s.Client = ptr(d.Client)
			if d.Rnd.IntN(2) == 0 {
				s.Node = ptr(d.Node)
			}
		},
		Targets: func(clients, nodes int) [][2]int8 {
			var out [][2]int8
			for c := range clients {
				out = append(out, [2]int8{int8(c), -1}) // cut from every node
				for n := range nodes {
					out = append(out, [2]int8{int8(c), int8(n)})
				}
			}
			return out
		},
		Variants: func(z Sizes) []Variant { return eachLength(z, func(*Spec) {}) },
	})
	register(Entry{
		Kind:     vocab.KindDrop,
		Example:  "client: 0, node: 0",
		Optional: []string{"client", "node", "groups", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			l, err := s.links()
			if err != nil {
				return nil, err
			}
			return Drop{Links: l}, nil
		},
		Random: func(d Draw) sim.Fault { return Drop{Links: Links{Clients: []int{d.Client}, Nodes: []int{d.Node}}} },
		Explore: func(d Draw, s *Spec) {
			s.Client = ptr(d.Client)
			s.Node = ptr(d.Node)
		},
		Targets: func(clients, nodes int) [][2]int8 {
			var out [][2]int8
			for c := range clients {
				for n := range nodes {
					out = append(out, [2]int8{int8(c), int8(n)})
				}
			}
			return out
		},
		Variants: func(z Sizes) []Variant { return eachLength(z, func(*Spec) {}) },
	})
}

// links reads the link selection a network fault's entry gives: groups,
// or client and/or node.
func (s Spec) links() (Links, error) {
	l := Links{Groups: s.Groups}
	if s.Client != nil {
		l.Clients = []int{*s.Client}
	}
	if s.Node != nil {
		l.Nodes = []int{*s.Node}
	}
	return l, l.CheckNames()
}
