package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node/rediscluster"
	"github.com/locksim/locksim/vtime"
)

// ClusterConfig says which nodes StartCluster runs. The zero value of each
// field is its default.
type ClusterConfig struct {
	Backend Backend // default BackendMiniredis
	Nodes   int     // number of masters, at least 1; external: len(Addrs)
	// Replicas per master, 0 or 1. On redis each master gets a real replica
	// that replicates through a proxy (so the link can be delayed or cut);
	// on miniredis replication is emulated for failover (see Failover).
	Replicas int
	// Failover says who promotes a replica (see FailoverConfig).
	Failover    FailoverConfig
	Persistence Persistence // redis backend only; default PersistenceNone
	// Server is the program the redis backend runs: redis or valkey
	// [redis].
	Server      Server
	RedisServer string // the server's binary; default Server.Binary() from PATH
	Dir         string // parent of the cluster's temp dir; default os.TempDir()
	// Addrs are the masters of the external backend, host:port in node
	// order: servers the harness does not run.
	Addrs []string
	// Toxiproxy is the host:port of a toxiproxy server's API that is to
	// hold the network's proxies; "" runs them in this process.
	Toxiproxy string
	// ProxiedClients is how many simulated clients (0 .. ProxiedClients-1)
	// reach the nodes through proxies, one per client and node, so that
	// network faults can delay, cut or reset each link; the others dial the
	// nodes directly. sim.Config.Resolve sets it when a run needs it.
	ProxiedClients int
	// InMemory runs the cluster without a socket: miniredis nodes served
	// on in-memory connections, proxies that are Go values (see network.Mem). It is what a
	// run in virtual time needs (sim.Config.VirtualTime sets it); miniredis
	// only.
	InMemory bool
	// Seed draws the in-memory network's wire delays (sim.Config.Resolve
	// gives it the run's seed).
	Seed uint64
}

// NodeCount is the number of masters cfg asks for.
func (cfg ClusterConfig) NodeCount() int {
	if cfg.Backend == BackendExternal && cfg.Nodes == 0 {
		return len(cfg.Addrs)
	}
	return cfg.Nodes
}

// networkConfig is what the cluster's network needs of cfg.
func (cfg ClusterConfig) networkConfig() network.Config {
	return network.Config{InMemory: cfg.InMemory, Toxiproxy: cfg.Toxiproxy, Seed: cfg.Seed,
		EmulatedReplicas: cfg.Backend != BackendRedis}
}

// Resolve fills the defaults and rejects what cannot run.
func (cfg ClusterConfig) Resolve() (ClusterConfig, error) {
	if cfg.Backend == "" {
		cfg.Backend = BackendMiniredis
	}
	if cfg.Persistence == "" {
		cfg.Persistence = PersistenceNone
	}
	cfg.Nodes = cfg.NodeCount()
	if cfg.Nodes < 1 {
		if cfg.Backend == BackendExternal {
			return cfg, errors.New("cluster: external backend: no addresses (give the masters' host:port)")
		}
		return cfg, fmt.Errorf("cluster: %d nodes: need at least 1", cfg.Nodes)
	}
	if cfg.Replicas < 0 || cfg.Replicas > 1 {
		return cfg, fmt.Errorf("cluster: %d replicas per master: 0 or 1 are supported", cfg.Replicas)
	}
	if cfg.Backend != BackendExternal && cfg.Backend != BackendRedisCluster {
		var err error
		if cfg.Failover, err = cfg.Failover.withDefaults(cfg.Backend, cfg.Replicas); err != nil {
			return cfg, err
		}
	}
	if cfg.ProxiedClients < 0 {
		return cfg, fmt.Errorf("cluster: %d proxied clients: must not be negative", cfg.ProxiedClients)
	}
	switch cfg.Persistence {
	case PersistenceNone, PersistenceEverySec, PersistenceAlways:
	default:
		return cfg, fmt.Errorf("cluster: unknown persistence %q (want %q, %q or %q)",
			cfg.Persistence, PersistenceNone, PersistenceEverySec, PersistenceAlways)
	}
	if err := CheckServer(cfg.Server); err != nil {
		return cfg, fmt.Errorf("cluster: %w", err)
	}
	switch {
	case cfg.Backend.RunsServer() && cfg.Server == "":
		cfg.Server = ServerRedis
	case !cfg.Backend.RunsServer() && cfg.Server != "" && cfg.Server != ServerRedis:
		return cfg, fmt.Errorf("cluster: server %s needs the %s backend, not %s", cfg.Server, BackendRedis, cfg.Backend)
	}
	switch cfg.Backend {
	case BackendMiniredis:
		if cfg.Persistence != PersistenceNone {
			// miniredis has no disk: what a restart keeps is Restart's
			// keepData alone. Silently ignoring the setting would make a
			// scenario claim a durability it never had.
			return cfg, fmt.Errorf("cluster: persistence %q needs the %s backend (on %s, Restart's keepData decides what survives)",
				cfg.Persistence, BackendRedis, BackendMiniredis)
		}
	case BackendRedis:
	case BackendRedisCluster:
		switch {
		case cfg.Persistence != PersistenceNone:
			return cfg, fmt.Errorf("cluster: persistence %q: the %s backend runs without persistence", cfg.Persistence, BackendRedisCluster)
		case cfg.Failover.Mode != "":
			return cfg, fmt.Errorf("cluster: failover.mode %s: a Redis Cluster elects its own replicas", cfg.Failover.Mode)
		}
	case BackendExternal:
		switch {
		case len(cfg.Addrs) != cfg.Nodes:
			return cfg, fmt.Errorf("cluster: external backend: %d nodes but %d addresses", cfg.Nodes, len(cfg.Addrs))
		case cfg.Replicas > 0:
			return cfg, errors.New("cluster: external backend: replicas are the servers' own business (replicas must be 0)")
		case cfg.Persistence != PersistenceNone:
			return cfg, fmt.Errorf("cluster: external backend: persistence %q is the servers' own setting", cfg.Persistence)
		}
		for i, a := range cfg.Addrs {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return cfg, fmt.Errorf("cluster: external node %d: address %q: want host:port", i, a)
			}
		}
	default:
		return cfg, fmt.Errorf("cluster: unknown backend %q (want %q, %q, %q or %q)", cfg.Backend, BackendMiniredis, BackendRedis, BackendRedisCluster, BackendExternal)
	}
	if cfg.InMemory {
		switch {
		case cfg.Backend != BackendMiniredis:
			return cfg, fmt.Errorf("cluster: in memory needs the %s backend, not %s", BackendMiniredis, cfg.Backend)
		case cfg.Toxiproxy != "":
			return cfg, errors.New("cluster: in memory, the proxies are the harness's own: no toxiproxy server")
		}
	}
	if cfg.Backend != BackendExternal && len(cfg.Addrs) > 0 {
		return cfg, fmt.Errorf("cluster: addresses are for the external backend, not %s", cfg.Backend)
	}
	return cfg, nil
}

// Cluster is a set of nodes started together and stopped together.
type Cluster struct {
	cfg ClusterConfig
	dir string // temp dir holding every redis node's data; "" for miniredis
	net *network.Network

	mu       sync.Mutex // guards nodes and replicas, which a failover swaps
	nodes    []Node
	replicas []Node // per node index; nil entries where there is none

	sentinels *sentinels            // sentinel mode only
	rc        *rediscluster.Cluster // redis-cluster backend only
	// redirected hears the simulated clients' MOVED and ASK (Redirected).
	redirected func(client int, event, detail string)

	closeOnce sync.Once
	closeErr  error
}

// closer is how a cluster stops its nodes for good (unlike Kill, a closed
// node cannot be restarted).
type closer interface{ close() error }

// StartCluster starts the nodes cfg asks for and waits until each answers.
// If it fails midway it stops whatever it had started. The cluster is
// registered for CloseAll until Close.
func StartCluster(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, net: network.New(cfg.networkConfig(), vtime.SchedulerFrom(ctx))}
	switch cfg.Backend {
	case BackendMiniredis:
		err = c.startMiniredis()
	case BackendRedis:
		err = c.startRedis(ctx)
	case BackendExternal:
		err = c.startExternal(ctx)
	case BackendRedisCluster:
		err = c.startRedisCluster(ctx)
	}
	if err == nil {
		err = c.startClientProxies()
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("start %s cluster: %w", cfg.Backend, err)
	}
	if !cfg.InMemory {
		// An in-memory cluster holds no process, port or file to clean up
		// after a signal, and its channels belong to a virtual-time bubble
		// that a signal handler must not touch; the run's context stops it.
		register(c)
	}
	return c, nil
}

func (c *Cluster) startMiniredis() error {
	for i := 0; i < c.cfg.Nodes; i++ {
		n, err := startMiniNode(i, c.net.Mem())
		if err != nil {
			return err
		}
		if c.cfg.Replicas > 0 {
			n.writes.enable() // what a failover would lose
			n.replicated = func(now time.Time) time.Time { return c.net.ReplicatedUpTo(i, now) }
		}
		c.nodes = append(c.nodes, n)
	}
	return nil
}

func (c *Cluster) startRedis(ctx context.Context) error {
	bin, err := LookupServer(c.cfg.Server, c.cfg.RedisServer)
	if err != nil {
		return err
	}
	c.cfg.RedisServer = bin
	if c.dir, err = os.MkdirTemp(c.cfg.Dir, clusterDirPattern()); err != nil {
		return fmt.Errorf("make temp dir: %w", err)
	}
	for i := 0; i < c.cfg.Nodes; i++ {
		dir := filepath.Join(c.dir, "node"+strconv.Itoa(i))
		n, err := startRedisNode(ctx, i, bin, dir, c.cfg.Persistence)
		if err != nil {
			return err
		}
		c.nodes = append(c.nodes, n)
	}
	if c.cfg.Replicas > 0 {
		if err := c.startReplicas(ctx); err != nil {
			return err
		}
	}
	if c.cfg.Sentinel() {
		return c.startSentinels(ctx)
	}
	return nil
}

// Config is the configuration the cluster runs with, defaults filled in
// (RedisServer resolved to a path on the redis backend).
func (c *Cluster) Config() ClusterConfig { return c.cfg }

// Nodes returns the cluster's nodes (the current masters) in index order.
func (c *Cluster) Nodes() []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Node(nil), c.nodes...)
}

// Node returns node i: the current master of index i (after a failover,
// the promoted replica).
func (c *Cluster) Node(i int) Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i]
}

// Replica returns node i's replica, or nil when it has none (always nil on
// miniredis, whose replication is emulated).
func (c *Cluster) Replica(i int) Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i < 0 || i >= len(c.replicas) {
		return nil
	}
	return c.replicas[i]
}

// Network is the cluster's network: the proxies in front of its nodes and
// the in-memory links the harness carries.
func (c *Cluster) Network() *network.Network { return c.net }

// Dir is the temp dir holding the redis nodes' data and logs ("" on
// miniredis). Close removes it.
func (c *Cluster) Dir() string { return c.dir }

// Close stops every node, waits for them, and removes the temp dir. It is
// idempotent and safe to call from a signal handler's goroutine; clients
// handed out by NewClient are the caller's to close.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		unregister(c)
		var errs []error
		if err := c.closeSentinels(); err != nil {
			errs = append(errs, fmt.Errorf("sentinels: %w", err))
		}
		// Proxies first: their connections would otherwise be dropped
		// from under them by the nodes' shutdown.
		if err := c.net.Close(); err != nil {
			errs = append(errs, fmt.Errorf("network: %w", err))
		}
		c.mu.Lock()
		all := append(append([]Node(nil), c.nodes...), c.replicas...)
		c.mu.Unlock()
		for _, n := range all {
			if n == nil {
				continue
			}
			if err := n.(closer).close(); err != nil {
				errs = append(errs, err)
			}
		}
		if c.rc != nil {
			if err := c.rc.Stop(); err != nil {
				errs = append(errs, err)
			}
		}
		if c.dir != "" {
			if err := os.RemoveAll(c.dir); err != nil {
				errs = append(errs, fmt.Errorf("remove %s: %w", c.dir, err))
			}
		}
		if err := errors.Join(errs...); err != nil {
			c.closeErr = fmt.Errorf("close %s cluster: %w", c.cfg.Backend, err)
		}
	})
	return c.closeErr
}
