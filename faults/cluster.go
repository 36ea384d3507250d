package faults

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node/rediscluster"
	"github.com/locksim/locksim/vocab"
)

// The Redis Cluster's faults (backend redis-cluster). Each acts on the
// master that serves the first lock key's slot at the moment it fires,
// whoever that is by then, so that a scenario needs no node index that a
// failover or a resharding would have made wrong.

// clusterOpTimeout bounds one of the harness's cluster operations,
// including a failover's election, which rediscluster bounds at 30 s too.
const clusterOpTimeout = 35 * time.Second

// clusterOnly refuses a cluster kind on the other backends.
func clusterOnly(kind vocab.Kind, cfg sim.Config) error {
	if cfg.Cluster.Backend != sim.BackendRedisCluster {
		return fmt.Errorf("%s needs backend %s, not %s", kind, sim.BackendRedisCluster, cfg.Cluster.Backend)
	}
	return nil
}

// clusterWithReplicas is clusterOnly for a kind that acts through a
// master's replica; why, when set, ends the error with what the replica is
// for.
func clusterWithReplicas(kind vocab.Kind, cfg sim.Config, why string) error {
	if err := clusterOnly(kind, cfg); err != nil {
		return err
	}
	if cfg.Cluster.Replicas < 1 {
		return fmt.Errorf("%s needs a replica per master (replicas: 1)%s", kind, why)
	}
	return nil
}

// keyMaster is the running Redis Cluster, the first lock key's slot, its
// master's address and that master's node index.
func keyMaster(ctx context.Context, w *sim.World) (*rediscluster.Cluster, int, string, int, error) {
	rc := w.Cluster().RedisCluster()
	if rc == nil {
		return nil, 0, "", 0, errors.New("no Redis Cluster in this run")
	}
	slot := rediscluster.SlotOf(w.Config().LockKey(0))
	owner, err := rc.OwnerOf(ctx, slot)
	if err != nil {
		return nil, 0, "", 0, err
	}
	return rc, slot, owner, w.Cluster().NodeIndex(owner), nil
}

// election is a failover's outcome, measured while the run goes on: the
// winner's node index and how long the election took.
type election struct {
	done   chan struct{}
	from   int // the old master's node index
	slot   int
	winner int
	took   time.Duration
	err    error
}

// wait waits for the election; a failed one is the heal's error.
func (e *election) wait() error {
	<-e.done
	return e.err
}

// target is the fault record's target once the election ended.
func (e *election) target(kind vocab.Kind) history.Target {
	t := history.Target{Kind: kind, Nodes: []int{e.from}, Slot: e.slot}
	select {
	case <-e.done:
		if e.err == nil {
			t.Nodes, t.Election = append(t.Nodes, e.winner), e.took
		}
	default:
	}
	return t
}

// electionKey is where a fault keeps its election for its record, which
// the schedule writes after the heal (TargetIn).
func electionKey(f sim.Fault) string { return "election: " + f.String() }

// electionOf takes back the election f kept, nil when it kept none.
func electionOf(w *sim.World, f sim.Fault) *election {
	if v, ok := w.Unstash(electionKey(f)); ok {
		return v.(*election)
	}
	return nil
}

// ClusterKillMaster kills (SIGKILL) the master of the first lock key's
// slot. The other masters mark it failed after cluster-node-timeout and
// its replica wins the election and serves the slot; what the replica had
// not received when the master died is lost. The election is measured
// from the kill until every node sees the replica serving the slots, and
// kept on the fault's record. The heal waits for the election and
// restarts the old master empty, which rejoins as the winner's replica.
type ClusterKillMaster struct{}

func (ClusterKillMaster) String() string { return "cluster-kill-master (the lock key's slot)" }

func (ClusterKillMaster) Validate(cfg sim.Config) error {
	return clusterWithReplicas(vocab.KindClusterKillMaster, cfg, " to elect")
}

func (f ClusterKillMaster) Start(w *sim.World) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	rc, slot, owner, idx, err := keyMaster(ctx, w)
	cancel()
	if err != nil {
		return err
	}
	w.Cluster().Network().Ending(network.NodeEnd(idx)) // see Network.Ending
	ctx, cancel = context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	if err := rc.Kill(ctx, owner); err != nil {
		return err
	}
	e := &election{done: make(chan struct{}), from: idx, slot: slot}
	w.Stash(electionKey(f), e)
	go func() {
		defer close(e.done)
		ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
		defer cancel()
		winner, took, err := rc.WaitFailover(ctx, owner)
		e.winner, e.took, e.err = w.Cluster().NodeIndex(winner), took, err
	}()
	w.Stash(f.String(), owner)
	return nil
}

func (f ClusterKillMaster) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	var errs []error
	if v, ok := w.Unstash(electionKey(f)); ok {
		e := v.(*election)
		w.Stash(electionKey(f), e) // for the record
		if err := e.wait(); err != nil {
			errs = append(errs, fmt.Errorf("election: %w", err))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	if err := w.Cluster().RedisCluster().Restart(ctx, v.(string)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (f ClusterKillMaster) TargetIn(w *sim.World) history.Target {
	if e := electionOf(w, f); e != nil {
		return e.target(vocab.KindClusterKillMaster)
	}
	return history.Target{Kind: vocab.KindClusterKillMaster}
}

// ClusterFailover sends CLUSTER FAILOVER [FORCE|TAKEOVER] to the replica
// of the first lock key's slot's master. The default waits for the
// replica to catch up with the master's replication offset before it
// takes over (no acknowledged write is lost); FORCE does not wait for
// the master but still asks the other masters to vote; TAKEOVER asks
// nobody. The election is measured from the command until every node
// sees the replica serving the slots, and kept on the fault's record.
type ClusterFailover struct {
	Mode rediscluster.FailoverMode
}

func (f ClusterFailover) String() string {
	if f.Mode == rediscluster.FailoverDefault {
		return "cluster-failover (the lock key's slot)"
	}
	return fmt.Sprintf("cluster-failover %s (the lock key's slot)", f.Mode)
}

func (ClusterFailover) Validate(cfg sim.Config) error {
	return clusterWithReplicas(vocab.KindClusterFailover, cfg, "")
}

func (f ClusterFailover) Start(w *sim.World) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	rc, slot, owner, idx, err := keyMaster(ctx, w)
	if err != nil {
		return err
	}
	replicas, err := rc.ReplicaOf(ctx, owner)
	if err != nil {
		return err
	}
	if len(replicas) == 0 {
		return fmt.Errorf("master %s has no replica to fail over to", owner)
	}
	replica := replicas[0]
	if err := rc.Failover(ctx, replica, f.Mode); err != nil {
		return err
	}
	e := &election{done: make(chan struct{}), from: idx, slot: slot}
	w.Stash(electionKey(f), e)
	go func() {
		defer close(e.done)
		ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
		defer cancel()
		took, err := rc.WaitPromoted(ctx, replica)
		e.winner, e.took, e.err = w.Cluster().NodeIndex(replica), took, err
	}()
	w.Stash(f.String(), e)
	return nil
}

// Stop waits for the election: the old master stays the new one's
// replica, as after a planned failover.
func (f ClusterFailover) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	if err := v.(*election).wait(); err != nil {
		return fmt.Errorf("election: %w", err)
	}
	return nil
}

func (f ClusterFailover) TargetIn(w *sim.World) history.Target {
	if e := electionOf(w, f); e != nil {
		return e.target(vocab.KindClusterFailover)
	}
	return history.Target{Kind: vocab.KindClusterFailover}
}

// failoverModes are the scenario's names of CLUSTER FAILOVER's modes.
var failoverModes = map[string]rediscluster.FailoverMode{
	"default":  rediscluster.FailoverDefault,
	"force":    rediscluster.FailoverForce,
	"takeover": rediscluster.FailoverTakeover,
}

// ClusterCutReplication cuts the replication of the first lock key's
// slot's master: from its start to its heal, the master's replicas get
// nothing (rediscluster.CutReplication: the master refuses them PSYNC and
// closes their links), while the master goes on acknowledging writes. A
// write acknowledged meanwhile is lost if the master dies before the
// heal: the window a failover loses, made certain instead of a race of
// microseconds.
type ClusterCutReplication struct{}

func (ClusterCutReplication) String() string {
	return "cluster-cut-replication (the lock key's slot)"
}

func (ClusterCutReplication) Validate(cfg sim.Config) error {
	return clusterWithReplicas(vocab.KindClusterCutReplication, cfg, "")
}

func (f ClusterCutReplication) Start(w *sim.World) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	rc, slot, owner, idx, err := keyMaster(ctx, w)
	if err != nil {
		return err
	}
	if err := rc.CutReplication(ctx, owner); err != nil {
		return err
	}
	w.Stash(f.String(), owner)
	w.Stash(targetKey(f), history.Target{Kind: vocab.KindClusterCutReplication, Nodes: []int{idx}, Slot: slot})
	return nil
}

func (f ClusterCutReplication) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	return w.Cluster().RedisCluster().HealReplication(ctx, v.(string))
}

// TargetIn is the master whose replication the fault cut, and its slot,
// so that a timeline draws the fault on that master's row alone.
func (f ClusterCutReplication) TargetIn(w *sim.World) history.Target {
	return targetOrKind(w, f, vocab.KindClusterCutReplication)
}

// ClusterReshard moves the first lock key's slot to the next master (in
// node order) while the run goes on: at its start the slot is marked
// IMPORTING on the target and MIGRATING on its owner and its keys are
// MIGRATEd (with their TTLs), so that a client asking the old owner for
// the key is sent on with -ASK; at its heal the slot is given to the
// target (SETSLOT NODE on every master), and the clients' next command on
// the old owner meets -MOVED.
type ClusterReshard struct{}

func (ClusterReshard) String() string { return "cluster-reshard (the lock key's slot)" }

func (ClusterReshard) Validate(cfg sim.Config) error {
	if err := clusterOnly(vocab.KindClusterReshard, cfg); err != nil {
		return err
	}
	if cfg.Cluster.Nodes < 2 {
		return errors.New("cluster-reshard needs at least 2 masters (nodes: 2)")
	}
	return nil
}

type resharding struct {
	m    *rediscluster.Migration
	slot int
	from int
	to   int
}

func (f ClusterReshard) Start(w *sim.World) error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	rc, slot, owner, idx, err := keyMaster(ctx, w)
	if err != nil {
		return err
	}
	masters, err := rc.Masters(ctx)
	if err != nil {
		return err
	}
	to := ""
	for i, m := range masters {
		if m == owner {
			to = masters[(i+1)%len(masters)]
		}
	}
	if to == "" || to == owner {
		return fmt.Errorf("no other master to move slot %d to", slot)
	}
	m, err := rc.BeginMigration(ctx, slot, to)
	if err != nil {
		return err
	}
	if _, err := m.MigrateKeys(ctx); err != nil {
		return err
	}
	r := resharding{m: m, slot: slot, from: idx, to: w.Cluster().NodeIndex(to)}
	w.Stash(f.String(), r)
	w.Stash(targetKey(f), history.Target{Kind: vocab.KindClusterReshard, Nodes: []int{r.from, r.to}, Slot: slot})
	return nil
}

func (f ClusterReshard) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	r := v.(resharding)
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	// Keys written to the source after the first MIGRATE follow too.
	if _, err := r.m.MigrateKeys(ctx); err != nil {
		return err
	}
	return r.m.FinishMigration(ctx)
}

// TargetIn is the slot's old owner and the master it moved to.
func (f ClusterReshard) TargetIn(w *sim.World) history.Target {
	return targetOrKind(w, f, vocab.KindClusterReshard)
}

// targetKey is where a cluster fault keeps, from its start, the target
// its record names (the nodes it found acting on the lock key's slot).
func targetKey(f sim.Fault) string { return "target: " + f.String() }

// targetOrKind takes back the target f kept at its start; a fault that
// did not start names only its kind.
func targetOrKind(w *sim.World, f sim.Fault, kind vocab.Kind) history.Target {
	if v, ok := w.Unstash(targetKey(f)); ok {
		return v.(history.Target)
	}
	return history.Target{Kind: kind}
}

var (
	_ sim.Fault         = ClusterKillMaster{}
	_ sim.Validator     = ClusterKillMaster{}
	_ sim.WorldTargeter = ClusterKillMaster{}
	_ sim.Fault         = ClusterFailover{}
	_ sim.Validator     = ClusterFailover{}
	_ sim.WorldTargeter = ClusterFailover{}
	_ sim.Fault         = ClusterCutReplication{}
	_ sim.Validator     = ClusterCutReplication{}
	_ sim.WorldTargeter = ClusterCutReplication{}
	_ sim.Fault         = ClusterReshard{}
	_ sim.Validator     = ClusterReshard{}
	_ sim.WorldTargeter = ClusterReshard{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindClusterKillMaster,
		Example:  "for: 1s",
		Optional: []string{"for", "until"},
		Build:    func(Spec) (sim.Fault, error) { return ClusterKillMaster{}, nil },
		OptIn:    true,
	})
	register(Entry{
		Kind:     vocab.KindClusterFailover,
		Example:  "mode: takeover",
		Optional: []string{"mode", "for", "until"},
		Build: func(s Spec) (sim.Fault, error) {
			if s.Mode == nil {
				return ClusterFailover{}, nil
			}
			m, ok := failoverModes[*s.Mode]
			if !ok {
				return nil, fmt.Errorf("mode %q: want default, force or takeover", *s.Mode)
			}
			return ClusterFailover{Mode: m}, nil
		},
		OptIn: true,
	})
	register(Entry{
		Kind:     vocab.KindClusterCutReplication,
		Example:  "for: 1s",
		Optional: []string{"for", "until"},
		Build:    func(Spec) (sim.Fault, error) { return ClusterCutReplication{}, nil },
		OptIn:    true,
	})
	register(Entry{
		Kind:     vocab.KindClusterReshard,
		Example:  "for: 1s",
		Required: []string{"for"},
		Optional: []string{"until"},
		Build:    func(Spec) (sim.Fault, error) { return ClusterReshard{}, nil },
		OptIn:    true,
	})
}
