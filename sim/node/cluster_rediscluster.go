package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node/rediscluster"
)

// BackendRedisCluster runs a Redis Cluster of redis-server (or
// valkey-server) processes on loopback through package rediscluster:
// Nodes masters, the slots split evenly among them, each with Replicas
// replicas, and the cluster's own failure detection and elections. Every
// process of the cluster is a node of the run, in start order (the
// masters first, then the replicas), so that a fault names any of them;
// each simulated client reaches the cluster with one go-redis
// ClusterClient whose dials go through that client's proxy per node.
const BackendRedisCluster Backend = "redis-cluster"

// clusterOpTimeout bounds the harness's own cluster commands (a kill's
// bookkeeping, a restart, a failover's command).
const clusterOpTimeout = 30 * time.Second

// clusterNode is one process of a Redis Cluster: a master or a replica,
// whichever it is now.
type clusterNode struct {
	idx  int
	addr string
	rc   *rediscluster.Cluster
	ctl  *redis.Client // the harness's own connection, READONLY on a replica
}

// A cluster node can be killed, restarted and paused; its clock is the
// host's.
var (
	_ ProcessController = (*clusterNode)(nil)
	_ Pauser            = (*clusterNode)(nil)
)

func (c *Cluster) startRedisCluster(ctx context.Context) error {
	bin, err := LookupServer(c.cfg.Server, c.cfg.RedisServer)
	if err != nil {
		return err
	}
	c.cfg.RedisServer = bin
	// The cluster's directory lives under one named like the redis
	// backend's, so that the sweep of directories a dead locksim left
	// (LeftDirs) finds it too.
	if c.dir, err = os.MkdirTemp(c.cfg.Dir, clusterDirPattern()); err != nil {
		return fmt.Errorf("make temp dir: %w", err)
	}
	replicas := c.cfg.Replicas
	if replicas == 0 {
		replicas = -1 // rediscluster's zero means its default, one
	}
	rc, err := rediscluster.Start(ctx, rediscluster.Options{Server: bin, Masters: c.cfg.Nodes, ReplicasPerMaster: replicas, Dir: c.dir})
	if err != nil {
		return err
	}
	c.rc = rc
	for i, addr := range rc.Addrs() {
		c.nodes = append(c.nodes, &clusterNode{idx: i, addr: addr, rc: rc, ctl: newReadonlyClient(addr)})
	}
	return nil
}

// newReadonlyClient is a client of one cluster node that sends READONLY
// on each connection, so that a replica answers reads of its own copy
// instead of redirecting them to its master.
func newReadonlyClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialerRetries:            1,
		DialTimeout:              clientTimeout,
		ReadTimeout:              clientTimeout,
		WriteTimeout:             clientTimeout,
		PoolSize:                 4,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			return cn.ReadOnly(ctx).Err()
		},
	})
}

// RedisCluster is the Redis Cluster the run plays on, nil on the other
// backends: the cluster fault kinds read its roles and slot owners and act
// on it.
func (c *Cluster) RedisCluster() *rediscluster.Cluster { return c.rc }

// NodeIndex is the index of the node at addr, or -1.
func (c *Cluster) NodeIndex(addr string) int {
	for i, n := range c.Nodes() {
		if n.Addr() == addr {
			return i
		}
	}
	return -1
}

// newClusterClient returns a ClusterClient of the cluster whose every dial
// goes to proxyOf(node address): the client's proxy for that node, or the
// node itself for a client without proxies. Its seed addresses are the
// nodes' own, so that its slot table and the redirects name the nodes the
// cluster names.
func (c *Cluster) newClusterClient(proxyOf func(addr string) string, redirected func(event, detail string)) *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 c.rc.Addrs(),
		Dialer:                rediscluster.Dialer(proxyOf),
		ContextTimeoutEnabled: true,
		// A redirect (MOVED, ASK) is followed; a command that failed on the
		// wire is not retried: a retried SET NX whose first reply was lost
		// would put an operation into the history the client never meant.
		MaxRedirects:             3,
		MaxRetries:               -1,
		DialerRetries:            1,
		DialTimeout:              clientTimeout,
		ReadTimeout:              clientTimeout,
		WriteTimeout:             clientTimeout,
		PoolSize:                 clientPoolSize,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	cc.OnNewNode(func(n *redis.Client) { n.AddHook(onceOnTheWire{cc: cc, redirected: redirected}) })
	return cc
}

// Redirected, when set before the clients are made, is told of every
// MOVED and ASK a simulated client's command met: the client's id, the
// redirect ("MOVED" or "ASK") and the reply's slot and address.
func (c *Cluster) Redirected(f func(client int, event, detail string)) { c.redirected = f }

// onceOnTheWire is the hook on each node client of a ClusterClient that
// keeps a command that may have run from being sent again: go-redis's
// cluster client follows MOVED and ASK and retries what failed on the
// wire within one budget (MaxRedirects), and a SET NX retried after a
// lost reply would put an operation into the history that the client
// never meant. A failure on the wire (a reset, EOF, a read timeout) is
// handed back as an error go-redis does not retry, after asking for a
// fresh slot table, so that the next command goes to the slot's owner
// of then (a killed master's elected replica), as cluster clients do.
// Server replies, dial failures (nothing was sent) and the caller's
// context are left as they are.
type onceOnTheWire struct {
	cc         *redis.ClusterClient
	redirected func(event, detail string) // nil: nobody listens
}

func (h onceOnTheWire) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			h.cc.ReloadState(ctx) // the node may be gone for good
		}
		return conn, err
	}
}

func (h onceOnTheWire) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := h.settle(ctx, next(ctx, cmd))
		h.redirect(err)
		if err != nil && cmd.Err() != nil {
			cmd.SetErr(err)
		}
		return err
	}
}

func (h onceOnTheWire) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := h.settle(ctx, next(ctx, cmds))
		for _, cmd := range cmds {
			if e := cmd.Err(); e != nil {
				cmd.SetErr(h.settle(ctx, e))
			}
		}
		return err
	}
}

// redirect tells the listener of a MOVED or ASK reply.
func (h onceOnTheWire) redirect(err error) {
	if err == nil || h.redirected == nil {
		return
	}
	if event, detail, ok := strings.Cut(err.Error(), " "); ok && (event == "MOVED" || event == "ASK") {
		h.redirected(event, detail)
	}
}

// settle is err as the cluster client may see it: a failure on the wire
// becomes a wireError, and the slot table is reloaded.
func (h onceOnTheWire) settle(ctx context.Context, err error) error {
	var re redis.Error
	var op *net.OpError
	switch {
	case err == nil, errors.As(err, &re), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &op) && op.Op == "dial":
		return err
	}
	h.cc.ReloadState(ctx)
	return wireError{err.Error()}
}

// wireError is a failure on the wire with its text, and nothing that
// go-redis's retry rules recognise (no EOF, no timeout).
type wireError struct{ msg string }

func (e wireError) Error() string { return e.msg }

// clusterClientConns is ClientConns on the cluster backend: one
// ClusterClient, through the client's proxies when it has them.
func (c *Cluster) clusterClientConns(id int) []redis.UniversalClient {
	var redirected func(event, detail string)
	if f := c.redirected; f != nil {
		redirected = func(event, detail string) { f(id, event, detail) }
	}
	return []redis.UniversalClient{c.newClusterConn(func(addr string) string {
		if i := c.NodeIndex(addr); i >= 0 {
			if via, ok := c.net.DialAddr(network.Link{From: network.ClientEnd(id), To: network.NodeEnd(i)}); ok {
				return via
			}
			return addr
		}
		return ""
	}, redirected)}
}

// clusterClients is NewClients on the cluster backend: one ClusterClient
// straight to the nodes.
func (c *Cluster) clusterClients() []redis.UniversalClient {
	return []redis.UniversalClient{c.newClusterConn(func(addr string) string {
		if c.NodeIndex(addr) >= 0 {
			return addr
		}
		return ""
	}, nil)}
}

// newClusterConn is newClusterClient with the map of its dials: every
// node's address to proxyOf's answer for it.
func (c *Cluster) newClusterConn(proxyOf func(addr string) string, redirected func(event, detail string)) *ClusterConn {
	via := map[string]string{}
	for _, addr := range c.rc.Addrs() {
		via[addr] = proxyOf(addr)
	}
	return &ClusterConn{ClusterClient: c.newClusterClient(proxyOf, redirected), dialAddrs: via}
}

func (n *clusterNode) Index() int       { return n.idx }
func (n *clusterNode) Addr() string     { return n.addr }
func (n *clusterNode) Backend() Backend { return BackendRedisCluster }

// FlushAll empties the node when it is a master (a replica follows its
// master and refuses writes).
func (n *clusterNode) FlushAll() error {
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	err := n.ctl.FlushAll(ctx).Err()
	if err != nil && strings.HasPrefix(err.Error(), "READONLY") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("node %d (%s): FLUSHALL: %w", n.idx, n.addr, err)
	}
	return nil
}

// Up reports whether the node's process runs (it may be paused).
func (n *clusterNode) Up() bool { return n.rc.Running(n.addr) }

func (n *clusterNode) Emulated() []string { return nil }

// Kill ends the node's process with SIGKILL; the cluster detects it after
// cluster-node-timeout and, for a master with a replica, elects the
// replica.
func (n *clusterNode) Kill() error {
	if !n.rc.Running(n.addr) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	return n.rc.Kill(ctx, n.addr)
}

// Restart starts the node again; it rejoins from its nodes.conf, empty
// (the cluster runs without persistence), so keepData true is refused.
func (n *clusterNode) Restart(keepData bool) error {
	if keepData {
		return fmt.Errorf("node %d (%s): restart with its data: the cluster runs without persistence", n.idx, BackendRedisCluster)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterOpTimeout)
	defer cancel()
	return n.rc.Restart(ctx, n.addr)
}

func (n *clusterNode) Pause() error  { return n.rc.PauseNode(n.addr) }
func (n *clusterNode) Resume() error { return n.rc.ResumeNode(n.addr) }

// close closes the harness's connection; the processes are the
// cluster's, which Cluster.Close stops.
func (n *clusterNode) close() error { return n.ctl.Close() }
