package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/internal/ports"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

const (
	// DefaultNodeTimeout is cluster-node-timeout when Options leaves it
	// zero. A master is suspected after it and its replica elected some
	// 0.5-1 s later (the spec's fixed 500 ms plus up to 500 ms random
	// delay), so a killed master's replica takes over within about 2-3 s.
	// Lower than 1 s and a node starved of CPU for a moment on a loaded
	// machine (a paused test, a busy CI runner) is failed over by mistake.
	DefaultNodeTimeout = time.Second

	formTimeout  = 30 * time.Second // from the first MEET to every check passing
	pollEvery    = 10 * time.Millisecond
	adminTimeout = 2 * time.Second // one admin command
	waitTimeout  = 30 * time.Second
	portTries    = 5
)

// Options configures a cluster.
type Options struct {
	// Server is the path of redis-server or valkey-server; empty means
	// redis-server from PATH.
	Server string
	// Masters is the number of masters, the slots split evenly among
	// them; 0 means 3 (the fewest whose majority survives one failure).
	Masters int
	// ReplicasPerMaster is the number of replicas of each master; 0 means
	// 1, a negative number none.
	ReplicasPerMaster int
	// NodeTimeout is cluster-node-timeout; 0 means DefaultNodeTimeout.
	NodeTimeout time.Duration
	// Dir is where each node's directory is made (under one directory of
	// the cluster's own, removed by Stop); empty means os.TempDir().
	Dir string
	// FullCoverage sets cluster-require-full-coverage. Off by default: a
	// master down with no replica to take over stops only its own slots,
	// so that a fault on one lock key's slot does not look like a whole
	// cluster outage to every other key.
	FullCoverage bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Server == "" {
		o.Server = "redis-server"
	}
	if o.Masters == 0 {
		o.Masters = 3
	}
	if o.Masters < 0 || o.Masters > Slots {
		return o, fmt.Errorf("rediscluster: Masters %d: want 1 to %d", o.Masters, Slots)
	}
	switch {
	case o.ReplicasPerMaster == 0:
		o.ReplicasPerMaster = 1
	case o.ReplicasPerMaster < 0:
		o.ReplicasPerMaster = 0
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = DefaultNodeTimeout
	}
	if o.NodeTimeout < 100*time.Millisecond {
		return o, fmt.Errorf("rediscluster: NodeTimeout %v: want at least 100ms", o.NodeTimeout)
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	return o, nil
}

// Cluster is a running Redis Cluster. Its methods may be called from
// several goroutines.
type Cluster struct {
	opts  Options
	root  string
	nodes []*node // in start order: the masters first, then the replicas
	bus   *busNet // the proxies the nodes' cluster bus runs through

	quit     chan struct{}  // closed by Stop: ends the isolations' watches
	watchers sync.WaitGroup // the isolations' watches

	mu         sync.Mutex
	stopped    bool
	killedAt   map[string]time.Time // by address: when Kill ended the node
	heirs      map[string][]string  // by a killed master's address: its replicas then
	failoverAt map[string]time.Time // by replica address: when Failover was sent
}

type node struct {
	idx  int // in start order
	addr string
	port int
	// reserved holds port and its bus port (port+10000) until Stop, so
	// that a restart finds them free (internal/ports).
	reserved *ports.Reservation
	bus      *busProxy
	dir      string
	args     []string
	id       string
	admin    *redis.Client

	mu     sync.Mutex
	proc   *proc // nil once killed, until restarted
	paused bool
}

func (n *node) current() (*proc, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc, n.paused
}

// Start starts the nodes, creates the cluster and waits until every node
// reports cluster_state:ok, knows every other node and every replica's
// link to its master is up. On failure it stops what it started.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(o.Dir, "locksim-cluster-")
	if err != nil {
		return nil, fmt.Errorf("rediscluster: make the cluster's directory: %w", err)
	}
	c := &Cluster{
		opts: o, root: root,
		bus:        newBusNet(),
		quit:       make(chan struct{}),
		killedAt:   map[string]time.Time{},
		heirs:      map[string][]string{},
		failoverAt: map[string]time.Time{},
	}
	if err := c.start(ctx); err != nil {
		c.Stop()
		return nil, fmt.Errorf("rediscluster: %w", err)
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	total := c.opts.Masters * (1 + c.opts.ReplicasPerMaster)
	for i := range total {
		n, err := c.startNode(ctx, i)
		if err != nil {
			return err
		}
		c.nodes = append(c.nodes, n)
	}
	for _, n := range c.nodes {
		id, err := c.do(ctx, n, "CLUSTER", "MYID").Text()
		if err != nil {
			return c.nodeErr(n, "CLUSTER MYID", err)
		}
		n.id = id
	}
	// Every node gets a config epoch of its own before it meets the
	// others, as redis-cli --cluster create does: left at 0, the masters
	// settle their collisions by bumping epochs one by one after the
	// cluster looks formed, and a replica that missed its master's last
	// bump before the master died asks for votes with an epoch older than
	// the slots' and is denied every time ("Failover auth denied ...
	// epoch > reqEpoch"), so it is never elected.
	for i, n := range c.nodes {
		if err := c.do(ctx, n, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			return c.nodeErr(n, "CLUSTER SET-CONFIG-EPOCH", err)
		}
	}
	first := c.nodes[0]
	for _, n := range c.nodes[1:] {
		// The bus port MEET names is n's proxy, as n announces it.
		if err := c.do(ctx, first, "CLUSTER", "MEET", "127.0.0.1", n.port, n.bus.port()).Err(); err != nil {
			return c.nodeErr(first, "CLUSTER MEET "+n.addr, err)
		}
	}
	for i, m := range c.nodes[:c.opts.Masters] {
		lo, hi := i*Slots/c.opts.Masters, (i+1)*Slots/c.opts.Masters-1
		if err := c.do(ctx, m, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			return c.nodeErr(m, fmt.Sprintf("CLUSTER ADDSLOTSRANGE %d %d", lo, hi), err)
		}
	}
	// A replica can follow its master only once it knows the master's id.
	if err := c.poll(ctx, formTimeout, "every node to know every other", c.allKnown); err != nil {
		return err
	}
	for i, r := range c.nodes[c.opts.Masters:] {
		m := c.nodes[i%c.opts.Masters]
		if err := c.do(ctx, r, "CLUSTER", "REPLICATE", m.id).Err(); err != nil {
			return c.nodeErr(r, "CLUSTER REPLICATE "+m.addr, err)
		}
	}
	return c.poll(ctx, formTimeout, "the cluster to form", c.formed)
}

// startNode starts node i on a free port, trying another port when the
// one it found was taken before the server bound it, with its bus behind
// a proxy of its own.
func (c *Cluster) startNode(ctx context.Context, i int) (*node, error) {
	dir := filepath.Join(c.root, "node"+strconv.Itoa(i))
	bus, err := c.bus.listen(i)
	if err != nil {
		return nil, err
	}
	var last error
	for range portTries {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		reserved, err := reservePorts()
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		port := reserved.Port()
		bus.setUpstream(busPortOf(port))
		args := serverArgs(port, dir, c.opts.NodeTimeout, c.opts.FullCoverage, bus.port(), sourceAddr(i))
		p, err := startProc(ctx, c.opts.Server, args, port, dir)
		if err == nil {
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			return &node{idx: i, addr: addr, port: port, reserved: reserved, bus: bus, dir: dir, args: args, proc: p, admin: adminClient(addr)}, nil
		}
		reserved.Release()
		last = err
		if !errors.Is(err, errPortTaken) || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("node %d: %w", i, last)
}

// adminClient is the cluster's own connection to one node: no retries
// (a fault must show, not be hidden), short timeouts, no handshake extras.
func adminClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		Protocol:                 2,
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialTimeout:              500 * time.Millisecond,
		ReadTimeout:              adminTimeout,
		WriteTimeout:             adminTimeout,
		PoolSize:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// do sends one command to n, bounded by adminTimeout.
func (c *Cluster) do(ctx context.Context, n *node, args ...any) *redis.Cmd {
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	return n.admin.Do(ctx, args...)
}

// nodeErr is one line: what failed on which node, and the node's last
// log line.
func (c *Cluster) nodeErr(n *node, what string, err error) error {
	return fmt.Errorf("%s on %s: %w%s", what, n.addr, err, lastLogLine(n.dir))
}

// notYet is what n still lacks, with its last log line: the error Start
// returns when the wait runs out.
func (c *Cluster) notYet(n *node, what string) error {
	return fmt.Errorf("%s %s%s", n.addr, what, lastLogLine(n.dir))
}

// poll calls check every pollEvery until it returns nil, ctx ends or
// bound passes; the error names what was awaited and check's last error.
func (c *Cluster) poll(ctx context.Context, bound time.Duration, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w: %w", what, ctx.Err(), err)
		case <-time.After(pollEvery):
		}
	}
}

// allKnown: every node lists every other, none still in handshake.
func (c *Cluster) allKnown(ctx context.Context) error {
	for _, n := range c.nodes {
		view, err := c.nodesOf(ctx, n)
		if err != nil {
			return c.nodeErr(n, "CLUSTER NODES", err)
		}
		if len(view) != len(c.nodes) {
			return c.notYet(n, fmt.Sprintf("knows %d of %d nodes", len(view), len(c.nodes)))
		}
		for _, e := range view {
			if e.has("handshake") || e.has("noaddr") {
				return c.notYet(n, "still shakes hands with "+e.addr)
			}
		}
	}
	return nil
}

// formed: every node says cluster_state:ok, sees the roles Start
// assigned and every master's config epoch as the master has it, and
// every replica's link to its master is up.
func (c *Cluster) formed(ctx context.Context) error {
	if err := c.allKnown(ctx); err != nil {
		return err
	}
	for _, n := range c.nodes {
		info, err := c.do(ctx, n, "CLUSTER", "INFO").Text()
		if err != nil {
			return c.nodeErr(n, "CLUSTER INFO", err)
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return c.notYet(n, "cluster_state is not ok")
		}
		view, err := c.nodesOf(ctx, n)
		if err != nil {
			return c.nodeErr(n, "CLUSTER NODES", err)
		}
		masters, replicas := 0, 0
		for _, e := range view {
			switch {
			case e.has("master") && len(e.slots) > 0:
				masters++
			case e.has("slave") && e.master != "":
				replicas++
			}
		}
		if want := len(c.nodes) - c.opts.Masters; masters != c.opts.Masters || replicas != want {
			return c.notYet(n, fmt.Sprintf("sees %d masters and %d replicas, want %d and %d", masters, replicas, c.opts.Masters, want))
		}
		// CLUSTER NODES shows a replica with its master's config epoch.
		for _, e := range view {
			o := c.nodeByID(e.id)
			if e.master != "" {
				o = c.nodeByID(e.master)
			}
			if o != nil && e.epoch != int64(o.idx+1) {
				return c.notYet(n, fmt.Sprintf("sees %s's config epoch as %d, want %d", o.addr, e.epoch, o.idx+1))
			}
		}
	}
	for _, r := range c.nodes[c.opts.Masters:] {
		info, err := c.do(ctx, r, "INFO", "replication").Text()
		if err != nil {
			return c.nodeErr(r, "INFO replication", err)
		}
		if !strings.Contains(info, "master_link_status:up") {
			return c.notYet(r, "master_link_status is not up")
		}
	}
	return nil
}

// Stop stops every node (SIGTERM, then SIGKILL after a short grace),
// waits for them and removes their directories. It is safe to call more
// than once and from several goroutines.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	c.stopped = true
	c.mu.Unlock()
	close(c.quit)
	c.watchers.Wait()
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		n.mu.Lock()
		p := n.proc
		n.proc, n.paused = nil, false
		n.mu.Unlock()
		if p != nil {
			wg.Go(func() { p.stop(termGrace) })
		}
	}
	wg.Wait()
	c.bus.stop()
	var errs []error
	for _, n := range c.nodes {
		if err := n.admin.Close(); err != nil && !errors.Is(err, redis.ErrClosed) {
			errs = append(errs, err)
		}
		n.reserved.Release()
	}
	if err := os.RemoveAll(c.root); err != nil {
		errs = append(errs, fmt.Errorf("rediscluster: remove %s: %w", c.root, err))
	}
	return errors.Join(errs...)
}

// Addrs is every node's address, in start order (the masters Start made
// first), whatever its role or state now.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.addr
	}
	return out
}

// Pids is the process id of every node running now, for a caller that
// checks nothing outlives the cluster.
func (c *Cluster) Pids() []int {
	var out []int
	for _, n := range c.nodes {
		if p, _ := n.current(); p != nil {
			out = append(out, p.pid())
		}
	}
	return out
}

// Dir is the cluster's directory, holding one directory per node.
func (c *Cluster) Dir() string { return c.root }

// node finds a node by address.
func (c *Cluster) node(addr string) (*node, error) {
	for _, n := range c.nodes {
		if n.addr == addr {
			return n, nil
		}
	}
	return nil, fmt.Errorf("rediscluster: no node %q in this cluster", addr)
}

func (c *Cluster) nodeByID(id string) *node {
	for _, n := range c.nodes {
		if n.id == id {
			return n
		}
	}
	return nil
}

// Running reports whether the node at addr has a process now (it may be
// paused); false for an address not in the cluster.
func (c *Cluster) Running(addr string) bool {
	n, err := c.node(addr)
	if err != nil {
		return false
	}
	p, _ := n.current()
	return p != nil
}
