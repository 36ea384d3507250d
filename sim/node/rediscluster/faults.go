package rediscluster

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// FailoverMode is CLUSTER FAILOVER's option.
type FailoverMode string

const (
	// FailoverDefault is a manual failover: the master stops its clients,
	// the replica catches up with its replication offset, then wins an
	// election; no acknowledged write is lost.
	FailoverDefault FailoverMode = ""
	// FailoverForce skips the handshake with the master (which may be
	// down) but still holds an election.
	FailoverForce FailoverMode = "FORCE"
	// FailoverTakeover skips the election too: the replica bumps its epoch
	// alone and takes the slots, whatever the other masters agree.
	FailoverTakeover FailoverMode = "TAKEOVER"
)

// Kill ends the node at addr with SIGKILL and waits until it is gone;
// Restart brings it back. The time of the kill and the master's replicas
// at that moment are kept for WaitFailover.
func (c *Cluster) Kill(ctx context.Context, addr string) error {
	n, err := c.node(addr)
	if err != nil {
		return err
	}
	heirs, _ := c.ReplicaOf(ctx, addr) // none when addr is a replica
	n.mu.Lock()
	p := n.proc
	n.proc, n.paused = nil, false
	n.mu.Unlock()
	if p == nil {
		return fmt.Errorf("rediscluster: kill %s: it is not running", addr)
	}
	p.kill()
	c.mu.Lock()
	c.killedAt[addr] = time.Now()
	c.heirs[addr] = heirs
	c.mu.Unlock()
	return nil
}

// Restart starts a killed node again on its port and directory; its
// nodes.conf makes it rejoin the cluster with its id (as a replica of
// whoever took its slots, if anyone did). Its data is gone: persistence
// is off.
func (c *Cluster) Restart(ctx context.Context, addr string) error {
	n, err := c.node(addr)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil {
		return fmt.Errorf("rediscluster: restart %s: it is running", addr)
	}
	p, err := restartProc(ctx, c.opts.Server, n.args, n.port, n.dir)
	if err != nil {
		return fmt.Errorf("rediscluster: restart node %d (%s): %w", n.idx, addr, err)
	}
	n.proc = p
	return nil
}

// PauseNode stops the node's process (SIGSTOP): it holds its connections
// but answers nothing, and the others fail it over after NodeTimeout.
func (c *Cluster) PauseNode(addr string) error {
	return c.pause(addr, syscall.SIGSTOP, true)
}

// ResumeNode continues a paused node (SIGCONT).
func (c *Cluster) ResumeNode(addr string) error {
	return c.pause(addr, syscall.SIGCONT, false)
}

func (c *Cluster) pause(addr string, sig syscall.Signal, paused bool) error {
	n, err := c.node(addr)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return fmt.Errorf("rediscluster: %v %s: it is not running", sig, addr)
	}
	if err := n.proc.signal(sig); err != nil {
		return fmt.Errorf("rediscluster: %w", err)
	}
	n.paused = paused
	return nil
}

// Failover sends CLUSTER FAILOVER with mode to the replica at addr. The
// reply comes at once; WaitPromoted waits for the outcome.
func (c *Cluster) Failover(ctx context.Context, replicaAddr string, mode FailoverMode) error {
	switch mode {
	case FailoverDefault, FailoverForce, FailoverTakeover:
	default:
		return fmt.Errorf("rediscluster: failover mode %q: want \"\", FORCE or TAKEOVER", mode)
	}
	n, err := c.node(replicaAddr)
	if err != nil {
		return err
	}
	args := []any{"CLUSTER", "FAILOVER"}
	if mode != FailoverDefault {
		args = append(args, string(mode))
	}
	c.mu.Lock()
	c.failoverAt[replicaAddr] = time.Now()
	c.mu.Unlock()
	if err := c.do(ctx, n, args...).Err(); err != nil {
		return c.nodeErr(n, fmt.Sprintf("CLUSTER FAILOVER %s", mode), err)
	}
	return nil
}

// WaitPromoted waits (at most 30 s, and while ctx lasts) until the replica
// Failover was sent to is a master serving slots in every running node's
// view, and returns how long that took from the command.
func (c *Cluster) WaitPromoted(ctx context.Context, replicaAddr string) (time.Duration, error) {
	n, err := c.node(replicaAddr)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	from, ok := c.failoverAt[replicaAddr]
	c.mu.Unlock()
	if !ok {
		return 0, fmt.Errorf("rediscluster: wait for %s's promotion: no failover was sent to it", replicaAddr)
	}
	var took time.Duration
	err = c.poll(ctx, waitTimeout, replicaAddr+"'s promotion", func(ctx context.Context) error {
		if err := c.promoted(ctx, n); err != nil {
			return err
		}
		took = time.Since(from)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("rediscluster: %w%s", err, lastLogLine(n.dir))
	}
	return took, nil
}

// promoted: n says it is a master serving slots, and every other node
// running unpaused and not parted from n by a bus cut agrees. The
// replica's own word alone is not enough: an election it believes won can
// still lose the slots to a claim with a higher or, on a tie, a winning
// config epoch.
func (c *Cluster) promoted(ctx context.Context, n *node) error {
	if err := c.claims(ctx, n); err != nil {
		return err
	}
	for _, o := range c.nodes {
		if p, paused := o.current(); o == n || p == nil || paused || c.parted(o, n) {
			continue
		}
		v, err := c.nodesOf(ctx, o)
		if err != nil {
			return c.nodeErr(o, "CLUSTER NODES", err)
		}
		ok := false
		for _, e := range v {
			ok = ok || e.id == n.id && e.has("master") && len(e.slots) > 0
		}
		if !ok {
			return fmt.Errorf("%s does not see %s as a master serving slots yet", o.addr, n.addr)
		}
	}
	return nil
}

// claims: n says it is a master serving slots.
func (c *Cluster) claims(ctx context.Context, n *node) error {
	v, err := c.nodesOf(ctx, n)
	if err != nil {
		return err
	}
	for _, e := range v {
		if e.has("myself") {
			if e.has("master") && len(e.slots) > 0 {
				return nil
			}
			return fmt.Errorf("%s is %v", n.addr, e.flags)
		}
	}
	return fmt.Errorf("%s does not list itself", n.addr)
}

// WaitFailover waits (at most 30 s, and while ctx lasts) until one of the
// replicas a killed (or paused) master had when Kill ended it is a master
// serving slots in every running node's view, and returns its address and the time from the kill: the
// failure detection (NodeTimeout and the gossip that makes it FAIL) and
// the election. For a paused master the time runs from the call.
func (c *Cluster) WaitFailover(ctx context.Context, oldMaster string) (string, time.Duration, error) {
	if _, err := c.node(oldMaster); err != nil {
		return "", 0, err
	}
	c.mu.Lock()
	from, killed := c.killedAt[oldMaster]
	heirs := c.heirs[oldMaster]
	c.mu.Unlock()
	if !killed {
		from = time.Now()
		h, err := c.ReplicaOf(ctx, oldMaster)
		if err != nil {
			return "", 0, err
		}
		heirs = h
	}
	if len(heirs) == 0 {
		return "", 0, fmt.Errorf("rediscluster: wait for %s's failover: it had no replica", oldMaster)
	}
	var winner string
	var took time.Duration
	err := c.poll(ctx, waitTimeout, oldMaster+"'s failover", func(ctx context.Context) error {
		var last error
		for _, h := range heirs {
			n, _ := c.node(h)
			if last = c.promoted(ctx, n); last == nil {
				winner, took = h, time.Since(from)
				return nil
			}
		}
		return last
	})
	if err != nil {
		n, _ := c.node(heirs[0])
		return "", 0, fmt.Errorf("rediscluster: %w%s", err, lastLogLine(n.dir))
	}
	return winner, took, nil
}

// CutReplication stops the master at addr from feeding its replicas: its
// default user loses PSYNC and SYNC (ACL SETUSER default -psync -sync),
// then its replicas' links are closed (CLIENT KILL TYPE replica). A
// replica reconnects at once, is refused the resync, and retries every
// second; the clients' commands go on. HealReplication gives PSYNC back,
// and the replica resyncs from the master's backlog.
func (c *Cluster) CutReplication(ctx context.Context, master string) error {
	n, err := c.node(master)
	if err != nil {
		return err
	}
	if err := c.do(ctx, n, "ACL", "SETUSER", "default", "-psync", "-sync").Err(); err != nil {
		return c.nodeErr(n, "ACL SETUSER default -psync -sync", err)
	}
	if err := c.do(ctx, n, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
		return c.nodeErr(n, "CLIENT KILL TYPE replica", err)
	}
	return nil
}

// HealReplication undoes CutReplication on the master at addr; a master
// killed since then restarted with its own configuration, and nothing is
// left to undo.
func (c *Cluster) HealReplication(ctx context.Context, master string) error {
	n, err := c.node(master)
	if err != nil {
		return err
	}
	if !c.Running(master) {
		return nil
	}
	if err := c.do(ctx, n, "ACL", "SETUSER", "default", "+psync", "+sync").Err(); err != nil {
		return c.nodeErr(n, "ACL SETUSER default +psync +sync", err)
	}
	return nil
}
