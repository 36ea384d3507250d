package rediscluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Isolation is a master cut off from every other node of the cluster: its
// cluster bus to each of them (CutBus) and its replication to its
// replicas (CutReplication), until Heal. On its own side of the cut the
// master goes on serving its slots until cluster-node-timeout passes
// without a PONG from a majority of masters; then it calls the cluster
// down (cluster_state:fail) and refuses every key command with
// CLUSTERDOWN. On the other side the masters mark it failed after the
// same timeout and elect its replica, which serves the slots with what it
// had received before the cut. Isolation watches for both while it lasts.
type Isolation struct {
	c       *Cluster
	master  *node
	heirs   []*node
	began   time.Time
	healBus func()

	cancel context.CancelFunc
	done   chan struct{} // closed when the watch ended

	mu      sync.Mutex
	outcome IsolationOutcome
	healed  bool
}

// IsolationOutcome is what the harness saw of an isolation, each time
// from its start, zero for what did not happen before the heal.
type IsolationOutcome struct {
	// Refused: the isolated master said cluster_state:fail, from which it
	// refuses writes with CLUSTERDOWN.
	Refused time.Duration
	// Winner is the replica elected on the majority's side, Elected when
	// every node there saw it serving slots.
	Winner  string
	Elected time.Duration
}

// IsolateMaster cuts the master at addr off from every other node: its
// bus, and its replication (the master refuses its replicas PSYNC, as in
// CutReplication). It must be a master serving slots, with a replica.
func (c *Cluster) IsolateMaster(ctx context.Context, addr string) (*Isolation, error) {
	m, err := c.node(addr)
	if err != nil {
		return nil, err
	}
	if err := c.claims(ctx, m); err != nil {
		return nil, fmt.Errorf("rediscluster: isolate %s: not a master serving slots: %w", addr, err)
	}
	heirAddrs, err := c.ReplicaOf(ctx, addr)
	if err != nil {
		return nil, err
	}
	if len(heirAddrs) == 0 {
		return nil, fmt.Errorf("rediscluster: isolate %s: it has no replica to elect", addr)
	}
	var heirs []*node
	for _, h := range heirAddrs {
		n, _ := c.node(h)
		heirs = append(heirs, n)
	}
	var others []int
	for _, n := range c.nodes {
		if n != m {
			others = append(others, n.idx)
		}
	}
	i := &Isolation{c: c, master: m, heirs: heirs, done: make(chan struct{})}
	i.began = time.Now()
	i.healBus = c.bus.cut([]int{m.idx}, others)
	if err := c.CutReplication(ctx, addr); err != nil {
		i.healBus()
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	i.cancel = cancel
	c.watchers.Go(func() { i.watch(wctx) })
	return i, nil
}

// watch polls the master's cluster state and the heirs' promotion until
// both happened, the isolation is healed or the cluster stopped. An admin command that fails
// (a node paused or killed meanwhile) is tried again at the next poll.
func (i *Isolation) watch(ctx context.Context) {
	defer close(i.done)
	for {
		i.mu.Lock()
		o := i.outcome
		i.mu.Unlock()
		if o.Refused == 0 {
			if info, err := i.c.do(ctx, i.master, "CLUSTER", "INFO").Text(); err == nil && strings.Contains(info, "cluster_state:fail") {
				i.set(func(o *IsolationOutcome) { o.Refused = time.Since(i.began) })
			}
		}
		if o.Winner == "" {
			for _, h := range i.heirs {
				if i.c.promoted(ctx, h) == nil {
					i.set(func(o *IsolationOutcome) { o.Winner, o.Elected = h.addr, time.Since(i.began) })
					break
				}
			}
		}
		i.mu.Lock()
		o = i.outcome
		i.mu.Unlock()
		if o.Refused > 0 && o.Winner != "" {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-i.c.quit:
			return
		case <-time.After(pollEvery):
		}
	}
}

func (i *Isolation) set(f func(*IsolationOutcome)) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.healed {
		f(&i.outcome)
	}
}

// Outcome is what the watch saw so far.
func (i *Isolation) Outcome() IsolationOutcome {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.outcome
}

// Heal ends the watch, reconnects the master's bus and gives its replicas
// PSYNC back, and returns what happened while it was cut off. After an
// election the master learns of the winner's newer claim on its slots from
// the gossip and follows it as a replica, dropping what it acknowledged
// alone; before one, it serves its slots again once it hears from a
// majority (Redis waits up to cluster-node-timeout more before it does, to
// let an election that started finish). It is safe to call more than once.
func (i *Isolation) Heal(ctx context.Context) (IsolationOutcome, error) {
	i.cancel()
	<-i.done
	i.mu.Lock()
	first := !i.healed
	i.healed = true
	out := i.outcome
	i.mu.Unlock()
	if !first {
		return out, nil
	}
	i.healBus()
	if err := i.c.HealReplication(ctx, i.master.addr); err != nil {
		return out, err
	}
	return out, nil
}

// parted reports whether a bus cut holds between a and o.
func (c *Cluster) parted(a, o *node) bool { return c.bus.parted(a.idx, o.idx) }
