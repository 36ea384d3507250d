package node

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/network"
	"github.com/redis/go-redis/v9"
)

// Failover, the way Redis Sentinel does it, made instant and certain:
//
//   - redis: every master has a replica that replicates through a proxy
//     (link r<i> <-> n<i>), so a scenario can delay or cut replication. A
//     failover kills the master, promotes the replica (REPLICAOF NO ONE)
//     and points every client proxy of node i at it: whatever the replica
//     had not received is lost. Node(i) is the promoted replica from then
//     on. Rejoin (the heal) restarts the old master empty as the new
//     master's replica, so that a later failover finds a replica again.
//   - miniredis has no replication. The failover is emulated: every key
//     written after the instant up to which the (virtual) replication
//     link r<i> <-> n<i> had delivered (see Network.replicatedUpTo) goes
//     back to its state then (a DEL undone, a SET lost), and the node's
//     connections drop.
//   - external: refused; the servers' topology is not the harness's.

const syncTimeout = 5 * time.Second

// startReplicas gives every redis master a replica behind a proxy.
func (c *Cluster) startReplicas(ctx context.Context) error {
	c.replicas = make([]Node, len(c.nodes))
	for i, m := range c.nodes {
		via, err := c.net.AddProxy(network.Link{From: network.ReplicaEnd(i), To: network.NodeEnd(i)}, m.Addr())
		if err != nil {
			return err
		}
		dir := filepath.Join(c.dir, "node"+strconv.Itoa(i)+"-replica")
		r, err := startRedisNode(ctx, i, c.cfg.RedisServer, dir, c.cfg.Persistence)
		if err != nil {
			return fmt.Errorf("replica of node %d: %w", i, err)
		}
		c.replicas[i] = r
		if err := r.follow(ctx, m.(*redisNode), via, true); err != nil {
			return fmt.Errorf("replica of node %d: %w", i, err)
		}
	}
	return nil
}

// startClientProxies puts one proxy on each link of each proxied client.
func (c *Cluster) startClientProxies() error {
	var links []network.Link
	for id := 0; id < c.cfg.ProxiedClients; id++ {
		for i := range c.nodes {
			links = append(links, network.Link{From: network.ClientEnd(id), To: network.NodeEnd(i)})
		}
		if c.sentinels != nil {
			for k := range c.sentinels.procs {
				links = append(links, network.Link{From: network.ClientEnd(id), To: network.SentinelEnd(k)})
			}
		}
	}
	return c.net.AddProxies(links, func(l network.Link) string {
		if l.To.Role == network.RoleSentinel {
			return c.sentinels.procs[l.To.Index].addr
		}
		return c.nodes[l.To.Index].Addr()
	})
}

// Failover replaces node i's master by its replica (see above). On
// miniredis it returns what the emulation did, for the history.
func (c *Cluster) Failover(i int) (string, error) {
	if i < 0 || i >= c.cfg.Nodes {
		return "", fmt.Errorf("failover: node %d: out of range (nodes: %d)", i, c.cfg.Nodes)
	}
	switch c.cfg.Backend {
	case BackendMiniredis:
		if c.cfg.Replicas < 1 {
			return "", fmt.Errorf("failover: node %d has no replica (replicas: 0)", i)
		}
		return c.emulateFailover(i)
	case BackendRedis:
	default:
		return "", fmt.Errorf("failover: not possible on the %s backend", c.cfg.Backend)
	}
	master, replica := c.Node(i), c.Replica(i)
	if replica == nil {
		return "", fmt.Errorf("failover: node %d has no replica (replicas: 0)", i)
	}
	proc, err := Capable[ProcessController](master, "be killed")
	if err != nil {
		return "", fmt.Errorf("failover: %w", err)
	}
	c.net.Ending(network.NodeEnd(i)) // see Network.Ending
	if err := proc.Kill(); err != nil {
		return "", fmt.Errorf("failover: node %d: %w", i, err)
	}
	if c.cfg.Sentinel() {
		// The sentinels take it from here (followSwitch).
		return fmt.Sprintf("node %d: master %s killed; Sentinel fails over to %s", i, master.Addr(), replica.Addr()), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	r := replica.(*redisNode)
	if err := r.promote(ctx); err != nil {
		return "", fmt.Errorf("failover: node %d: promote its replica: %w", i, err)
	}
	c.mu.Lock()
	c.nodes[i], c.replicas[i] = replica, master
	c.mu.Unlock()
	// Client proxies and the replication proxy now lead to the new master.
	if err := c.net.Retarget(network.NodeEnd(i), replica.Addr()); err != nil {
		return "", fmt.Errorf("failover: node %d: redirect clients: %w", i, err)
	}
	return fmt.Sprintf("node %d: replica %s promoted, master %s killed", i, replica.Addr(), master.Addr()), nil
}

// Rejoin heals a failover of node i: on redis the old master comes back,
// empty, as the new master's replica. Elsewhere there is nothing to do.
func (c *Cluster) Rejoin(i int) error {
	if c.cfg.Backend != BackendRedis {
		return nil
	}
	if c.cfg.Sentinel() {
		return c.rejoinSentinel(i)
	}
	old, ok := c.Replica(i).(*redisNode)
	master, _ := c.Node(i).(*redisNode)
	if !ok || master == nil {
		return fmt.Errorf("rejoin: node %d has no replica slot", i)
	}
	via, ok := c.net.DialAddr(network.Link{From: network.ReplicaEnd(i), To: network.NodeEnd(i)})
	if !ok {
		return fmt.Errorf("rejoin: node %d: no replication proxy", i)
	}
	old.setReplica(true)
	if !old.Up() {
		// Its data would be thrown away by the full sync anyway.
		if err := old.Restart(false); err != nil {
			return fmt.Errorf("rejoin: node %d: %w", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout+ctlTimeout)
	defer cancel()
	if err := old.follow(ctx, master, via, false); err != nil {
		return fmt.Errorf("rejoin: node %d: %w", i, err)
	}
	return nil
}

// emulateFailover: the node loses the writes its replica would not have
// had, and its connections drop as a new server's would.
func (c *Cluster) emulateFailover(i int) (string, error) {
	n, ok := c.Node(i).(*miniNode)
	if !ok {
		return "", fmt.Errorf("failover: node %d is not a miniredis node", i)
	}
	now := time.Now()
	upTo := c.net.ReplicatedUpTo(i, now)
	c.net.Ending(network.NodeEnd(i)) // see Network.Ending
	if err := n.Kill(); err != nil {
		return "", err
	}
	lost := n.revertWritesSince(upTo)
	if err := n.Restart(true); err != nil {
		return "", fmt.Errorf("failover: node %d: %w", i, err)
	}
	return fmt.Sprintf("node %d (emulated): replication %v behind; %d key(s) back to that instant %v", i,
		now.Sub(upTo).Round(time.Millisecond), len(lost), lost), nil
}

// follow makes n a replica of master, reached through via, and waits until
// the initial sync is done; with acked, also until the master counts it
// online and a WAIT through it is answered (a cluster's first replica,
// which a design's WAIT may need at once). A rejoin after a failover does
// not ask that much: Sentinel may be reconfiguring the same servers.
func (n *redisNode) follow(ctx context.Context, master *redisNode, via string, acked bool) error {
	host, port, err := net.SplitHostPort(via)
	if err != nil {
		return err
	}
	mc, err := master.control()
	if err != nil {
		return fmt.Errorf("master: %w", err)
	}
	// Redis 7 waits 5 s before a diskless sync by default, hoping for more
	// replicas to share it; there is only one.
	if err := mc.client.ConfigSet(ctx, "repl-diskless-sync-delay", "0").Err(); err != nil {
		return fmt.Errorf("master: %w", err)
	}
	n.setReplica(true)
	c, err := n.control()
	if err != nil {
		return err
	}
	if err := c.client.ReplicaOf(ctx, host, port).Err(); err != nil {
		return fmt.Errorf("REPLICAOF %s: %w", via, err)
	}
	// Synced when the replica says its link is up and the master counts
	// it online: the replica can report the link up while the master is
	// still in wait_bgsave, and a WAIT then gets no acknowledgement.
	deadline := time.Now().Add(syncTimeout)
	for {
		info, err := c.client.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") && strings.Contains(info, "master_sync_in_progress:0") {
			if !acked {
				return nil
			}
			var minfo string
			if minfo, err = mc.client.Info(ctx, "replication").Result(); err == nil && strings.Contains(minfo, "state=online") {
				// and its acknowledgements flow: right after the sync a
				// replica may acknowledge only on its once-a-second
				// cron, so a design's first WAIT (setpx-wait's 200 ms)
				// would go unanswered. A PUBLISH moves the replication
				// offset without touching the keyspace; one WAIT that
				// the replica answers proves the path.
				var acks int64
				if err = mc.client.Publish(ctx, "locksim:replica-probe", "sync").Err(); err == nil {
					if acks, err = mc.client.Do(ctx, "WAIT", 1, time.Until(deadline).Milliseconds()).Int64(); err == nil && acks >= 1 {
						return nil
					}
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica did not sync with %s within %v (last: %v)", via, syncTimeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(readyPollEvery):
		}
	}
}

// promote makes a replica a master. The TTLs it replicated are in step with
// its old master's clock, and the shift marker it replicated is the old
// master's; from now on this node's own clock rules, so the marker is set to
// this node's clock lead as of now: only later clock changes shift TTLs.
func (n *redisNode) promote(ctx context.Context) error {
	c, err := n.control()
	if err != nil {
		return err
	}
	if err := c.client.ReplicaOf(ctx, "NO", "ONE").Err(); err != nil {
		return fmt.Errorf("REPLICAOF NO ONE: %w", err)
	}
	return n.adoptMaster(ctx)
}

// adoptMaster is the harness's side of a promotion (by promote, or by the
// sentinels): the node's own clock rules its keys from now on.
func (n *redisNode) adoptMaster(ctx context.Context) error {
	c, err := n.control()
	if err != nil {
		return err
	}
	n.shift.mu.Lock()
	defer n.shift.mu.Unlock()
	n.setReplica(false)
	lead := n.clock.lead().Milliseconds()
	if err := adoptMarkerScript.Run(ctx, c.client, []string{shiftMarkerKey}, lead).Err(); err != nil {
		n.shift.known = false
		return fmt.Errorf("reset the clock shift marker: %w", err)
	}
	n.shift.known, n.shift.epoch, n.shift.applied = true, c.epoch, lead
	return nil
}

var adoptMarkerScript = redis.NewScript(`
redis.call('SELECT', ` + strconv.Itoa(shiftMarkerDB) + `)
redis.call('SET', KEYS[1], ARGV[1])
return 1
`)

func (n *redisNode) setReplica(v bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.replica = v
}

// isReplica: a replica's keys follow its master, so its shifter stays idle.
func (n *redisNode) isReplica() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.replica
}

// rejoinSentinel restarts node i's killed server empty. If the sentinels
// had failed over, it is made a replica of the server they promoted and
// synced at once, as they would do themselves (+convert-to-slave) only
// after watching it for some 8 to 18 s: a design that waits for a
// replica's acknowledgement (setpx-wait) needs one again for the liveness
// probe. If they had not, the master is back and they find it up.
func (c *Cluster) rejoinSentinel(i int) error {
	master, _ := c.Node(i).(*redisNode)
	for _, n := range []Node{c.Node(i), c.Replica(i)} {
		r, ok := n.(*redisNode)
		if !ok || r.Up() {
			continue
		}
		replica := n == c.Replica(i)
		if replica {
			r.setReplica(true)
		}
		if err := r.Restart(false); err != nil {
			return fmt.Errorf("rejoin: node %d: %w", i, err)
		}
		if !replica || master == nil || !master.Up() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), syncTimeout+ctlTimeout)
		err := r.follow(ctx, master, master.Addr(), false)
		cancel()
		if err != nil {
			return fmt.Errorf("rejoin: node %d: %w", i, err)
		}
	}
	return nil
}
