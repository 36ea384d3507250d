package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// ClusterConfig says which nodes StartCluster runs. The zero value of each
// field is its default.
type ClusterConfig struct {
	Backend     Backend     // default BackendMiniredis
	Nodes       int         // number of masters, at least 1
	Persistence Persistence // redis backend only; default PersistenceNone
	RedisServer string      // redis-server binary; default "redis-server" from PATH
	Dir         string      // parent of the cluster's temp dir; default os.TempDir()
}

// withDefaults fills the defaults and rejects what cannot run.
func (cfg ClusterConfig) withDefaults() (ClusterConfig, error) {
	if cfg.Backend == "" {
		cfg.Backend = BackendMiniredis
	}
	if cfg.Persistence == "" {
		cfg.Persistence = PersistenceNone
	}
	if cfg.Nodes < 1 {
		return cfg, fmt.Errorf("cluster: %d nodes: need at least 1", cfg.Nodes)
	}
	switch cfg.Persistence {
	case PersistenceNone, PersistenceEverySec, PersistenceAlways:
	default:
		return cfg, fmt.Errorf("cluster: unknown persistence %q (want %q, %q or %q)",
			cfg.Persistence, PersistenceNone, PersistenceEverySec, PersistenceAlways)
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
	default:
		return cfg, fmt.Errorf("cluster: unknown backend %q (want %q or %q)", cfg.Backend, BackendMiniredis, BackendRedis)
	}
	return cfg, nil
}

// Cluster is a set of nodes started together and stopped together.
type Cluster struct {
	cfg   ClusterConfig
	nodes []Node
	dir   string // temp dir holding every redis node's data; "" for miniredis

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
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg}
	switch cfg.Backend {
	case BackendMiniredis:
		err = c.startMiniredis()
	case BackendRedis:
		err = c.startRedis(ctx)
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("start %s cluster: %w", cfg.Backend, err)
	}
	register(c)
	return c, nil
}

func (c *Cluster) startMiniredis() error {
	for i := 0; i < c.cfg.Nodes; i++ {
		n, err := startMiniNode(i)
		if err != nil {
			return err
		}
		c.nodes = append(c.nodes, n)
	}
	return nil
}

func (c *Cluster) startRedis(ctx context.Context) error {
	bin, err := LookupRedisServer(c.cfg.RedisServer)
	if err != nil {
		return err
	}
	c.cfg.RedisServer = bin
	if c.dir, err = os.MkdirTemp(c.cfg.Dir, "locksim-redis-"); err != nil {
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
	return nil
}

// Config is the configuration the cluster runs with, defaults filled in
// (RedisServer resolved to a path on the redis backend).
func (c *Cluster) Config() ClusterConfig { return c.cfg }

// Nodes returns the cluster's nodes in index order.
func (c *Cluster) Nodes() []Node {
	return append([]Node(nil), c.nodes...)
}

// Node returns node i.
func (c *Cluster) Node(i int) Node { return c.nodes[i] }

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
		for _, n := range c.nodes {
			if err := n.(closer).close(); err != nil {
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
