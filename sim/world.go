package sim

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/recorder"
	"github.com/locksim/locksim/vtime"
)

// World is what faults act on: the clients' gates and clocks, the cluster's
// nodes and network, the resource and true time.
type World struct {
	cfg     Config
	rec     *recorder.Recorder
	cluster *Cluster
	res     *Resource
	clients []*Client
	// sched orders what happens at one instant of virtual time (nil in
	// real time).
	sched *vtime.Scheduler

	// What faults keep between Start and Stop (see Stash), and the ids of
	// fault records that faults add themselves (see RecordFault).
	stashMu sync.Mutex
	stash   map[string][]any
	timers  map[string]int // AfterFunc and Wait calls per name, for their keys
	faultID atomic.Int64
}

// NewWorld builds the world of spec around a started cluster: the recorder,
// the resource and the clients, which do not run. Faults can then be
// started and stopped by hand, as tests do; Run builds its own world. Close
// closes the clients; the cluster stays the caller's.
func NewWorld(spec Spec, cluster *Cluster) (*World, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	cfg := spec.cfg
	rec := recorder.New()
	w := &World{cfg: cfg, rec: rec, cluster: cluster, res: newResource(rec)}
	sched := newSchedule(w, nil)
	for i := 0; i < cfg.Clients; i++ {
		c, err := newClient(i, w, sched)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("client %d: %w", i, err)
		}
		w.clients = append(w.clients, c)
	}
	return w, nil
}

// Close closes the clients' connections.
func (w *World) Close() { closeClients(w.clients) }

// Config is the run's configuration (defaults filled in).
func (w *World) Config() Config { return w.cfg }

// Cluster is the run's Redis nodes.
func (w *World) Cluster() *Cluster { return w.cluster }

// Network is the run's network: the links between clients, nodes,
// replicas and the resource.
func (w *World) Network() *network.Network { return w.cluster.Network() }

// History is what was recorded so far.
func (w *World) History() History { return w.rec.History() }

// Now is true time since the run's start.
func (w *World) Now() time.Duration { return w.rec.Now() }

// Client returns client i, or an error naming the index.
func (w *World) Client(i int) (*Client, error) {
	if i < 0 || i >= len(w.clients) {
		return nil, fmt.Errorf("client %d: out of range (clients: %d)", i, len(w.clients))
	}
	return w.clients[i], nil
}

// Node returns node i, or an error naming the index.
func (w *World) Node(i int) (node.Node, error) {
	nodes := w.cluster.Nodes()
	if i < 0 || i >= len(nodes) {
		return nil, fmt.Errorf("node %d: out of range (nodes: %d)", i, len(nodes))
	}
	return nodes[i], nil
}

// Stash keeps v for the fault described by key until Unstash. Faults are
// plain values, so what a Start must hand to its Stop (a network effect's
// id, a pending restart) lives in the world. Identical faults are
// interchangeable, so Unstash returns the most recent v for key.
func (w *World) Stash(key string, v any) {
	w.stashMu.Lock()
	defer w.stashMu.Unlock()
	if w.stash == nil {
		w.stash = map[string][]any{}
	}
	w.stash[key] = append(w.stash[key], v)
}

// Unstash takes back what Stash kept under key.
func (w *World) Unstash(key string) (any, bool) {
	w.stashMu.Lock()
	defer w.stashMu.Unlock()
	vs := w.stash[key]
	if len(vs) == 0 {
		return nil, false
	}
	v := vs[len(vs)-1]
	if len(vs) == 1 {
		delete(w.stash, key)
	} else {
		w.stash[key] = vs[:len(vs)-1]
	}
	return v, true
}

// RecordFault adds to the history a fault that a fault ran itself (the
// random nemesis's): desc from start until now, as the schedule records its
// own: failed if it did not start, unknown if it did not heal. Its id
// follows the scheduled faults' ids.
func (w *World) RecordFault(desc string, start time.Duration, startErr, healErr error) {
	op := Op{Kind: KindFault, Client: NoClient, Call: start, Return: w.rec.Now(), Outcome: OK, Fault: desc,
		FaultID: len(w.cfg.Faults) + int(w.faultID.Add(1))}
	switch {
	case startErr != nil:
		op.Outcome, op.Err, op.Return = Fail, startErr.Error(), start
	case healErr != nil:
		op.Outcome, op.Err = Unknown, healErr.Error()
	}
	w.rec.Add(op)
}

// timerKey is the scheduler key of the next timer or wait of name:
// "fault-timer/<name>#<n>", numbered when it is set, in the run's order.
func (w *World) timerKey(name string) string {
	w.stashMu.Lock()
	defer w.stashMu.Unlock()
	if w.timers == nil {
		w.timers = map[string]int{}
	}
	w.timers[name]++
	return "fault-timer/" + name + "#" + strconv.Itoa(w.timers[name])
}

// AfterFunc calls f in its own goroutine after d of true time, as
// time.AfterFunc does; in virtual time f starts in the run's order among
// everything else of its instant (vtime.Scheduler). Faults time what
// they do later (a node's restart) through it.
func (w *World) AfterFunc(name string, d time.Duration, f func()) *time.Timer {
	return w.sched.AfterFunc(w.timerKey(name), d, f)
}

// Wait waits d of true time and reports whether stop closed first; in
// virtual time the waiter goes on in the run's order.
func (w *World) Wait(stop <-chan struct{}, name string, d time.Duration) bool {
	key := w.timerKey(name)
	t := time.NewTimer(d)
	defer t.Stop()
	stopped := false
	select {
	case <-stop:
		stopped = true
	case <-t.C:
	}
	w.sched.Gate(key)
	return stopped
}

// newObservers makes the observers of w's lock keys on its nodes
// (node.Observers), recording into w's history.
func newObservers(w *World) *node.Observers {
	return node.NewObservers(w.cluster, w.cfg.Keys, w.rec, w.sched)
}
