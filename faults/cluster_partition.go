package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node/rediscluster"
	"github.com/locksim/locksim/vocab"
)

// ClusterPartitionMaster cuts the master that serves the first lock key's
// slot off from the rest of the cluster until the heal: its cluster bus
// to every other node (rediscluster.IsolateMaster), its replication, and
// the clients' links, so that the clients in Clients reach that master
// alone and every other client reaches every node but it. The master goes
// on acknowledging its side's writes until cluster-node-timeout passes
// without hearing from a majority of masters, then refuses them with
// CLUSTERDOWN; the majority marks it failed after the same timeout and
// elects its replica, which serves the slot without what the master
// acknowledged after the cut. The fault's record keeps when the master
// refused (Target.Refused) and, when the replica won before the heal, the
// election (Target.Election, Target.Nodes: the old master and the
// winner), each from the cut. At the heal the old master hears of the
// winner and follows it, dropping its own writes.
type ClusterPartitionMaster struct {
	Clients []int // kept on the master's side
}

func (f ClusterPartitionMaster) String() string {
	s := "cluster-partition-master (the lock key's slot"
	if len(f.Clients) > 0 {
		cs := make([]string, len(f.Clients))
		for i, c := range f.Clients {
			cs[i] = "c" + strconv.Itoa(c)
		}
		s += "; " + strings.Join(cs, ",") + " on its side"
	}
	return s + ")"
}

func (f ClusterPartitionMaster) Validate(cfg sim.Config) error {
	if err := clusterWithReplicas(vocab.KindClusterPartition, cfg, " to elect"); err != nil {
		return err
	}
	if cfg.Cluster.Nodes < 3 {
		return fmt.Errorf("%s needs at least 3 masters (nodes: 3): the masters left must be a majority to elect", vocab.KindClusterPartition)
	}
	for _, c := range f.Clients {
		if err := clientInRange(c, cfg); err != nil {
			return err
		}
	}
	return nil
}

// UsesNetwork: every client's links to the nodes go through proxies, so
// that the cut parts the clients too.
func (ClusterPartitionMaster) UsesNetwork(sim.Config) bool { return true }

// isolation is a started partition, and what its heal saw.
type isolation struct {
	iso     *rediscluster.Isolation
	net     network.EffectID
	master  int
	slot    int
	outcome rediscluster.IsolationOutcome
	winner  int
}

func (f ClusterPartitionMaster) Start(w *sim.World) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	rc, slot, owner, idx, err := keyMaster(ctx, w)
	if err != nil {
		return err
	}
	id, err := w.Network().Start(f.clientLinks(w.Config().Clients, len(w.Cluster().Nodes()), idx), network.LinkFault{Cut: true})
	if err != nil {
		return err
	}
	iso, err := rc.IsolateMaster(ctx, owner)
	if err != nil {
		return errors.Join(err, w.Network().Stop(id))
	}
	w.Stash(f.String(), &isolation{iso: iso, net: id, master: idx, slot: slot, winner: -1})
	return nil
}

// clientLinks are the clients' links the cut parts, among clients
// clients and nodes nodes (every process of the cluster, replicas
// included: a client reaches each through a proxy of its own): a kept
// client's to every node but master, every other client's to master.
func (f ClusterPartitionMaster) clientLinks(clients, nodes, master int) []network.Link {
	var out []network.Link
	for c := range clients {
		kept := slices.Contains(f.Clients, c)
		for n := range nodes {
			if kept != (n == master) {
				out = append(out, network.Link{From: network.ClientEnd(c), To: network.NodeEnd(n)})
			}
		}
	}
	return out
}

func (f ClusterPartitionMaster) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	p := v.(*isolation)
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	netErr := w.Network().Stop(p.net)
	out, err := p.iso.Heal(ctx)
	p.outcome = out
	if out.Winner != "" {
		p.winner = w.Cluster().NodeIndex(out.Winner)
	}
	w.Stash(f.String(), p) // for the record
	return errors.Join(netErr, err)
}

func (f ClusterPartitionMaster) TargetIn(w *sim.World) history.Target {
	t := history.Target{Kind: vocab.KindClusterPartition, Clients: f.Clients}
	v, ok := w.Unstash(f.String())
	if !ok {
		return t
	}
	p := v.(*isolation)
	t.Nodes, t.Slot, t.Refused = []int{p.master}, p.slot, p.outcome.Refused
	if p.winner >= 0 {
		t.Nodes, t.Election = append(t.Nodes, p.winner), p.outcome.Elected
	}
	return t
}

var (
	_ sim.Fault         = ClusterPartitionMaster{}
	_ sim.Validator     = ClusterPartitionMaster{}
	_ sim.NetworkUser   = ClusterPartitionMaster{}
	_ sim.WorldTargeter = ClusterPartitionMaster{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindClusterPartition,
		Example:  "client: 0, for: 4s",
		Optional: []string{"client", "for", "until"},
		Note:     "client is the one client kept on the master's side",
		Build: func(s Spec) (sim.Fault, error) {
			var f ClusterPartitionMaster
			if s.Client != nil {
				f.Clients = []int{*s.Client}
			}
			return f, nil
		},
		OptIn: true,
	})
}
