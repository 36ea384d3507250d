package node

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

	"github.com/locksim/locksim/sim/network"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Sentinel mode (FailoverSentinel): three redis-sentinel processes, quorum
// 2, watch every master under the name masterName(i). They run in the
// cluster's temp dir, on free loopback ports, and stop with the cluster.
// Nothing promotes by hand: a killed, paused or cut-off master is Sentinel's
// to detect and fail over, and the harness only follows what the sentinels
// announce (+switch-master) to know which server is node i now.
//
// The sentinels talk to the servers directly; the clients reach the
// sentinels and the servers through their proxies (links c<i> <-> s<k> and
// c<i> <-> n<j>), so that network faults reach both.

const (
	// Sentinels is how many sentinels watch the masters; SentinelQuorum of
	// them must agree that a master is down.
	Sentinels      = 3
	SentinelQuorum = 2
	sentinelLog    = "sentinel.log"
	// sentinelReadyTimeout bounds the wait for the sentinels to find each
	// other (their hello messages go out every 2 s) and the replicas.
	sentinelReadyTimeout = 15 * time.Second
)

// masterName is the name the sentinels know node i's master by.
func masterName(i int) string { return "locksim-n" + strconv.Itoa(i) }

// SentinelEvent is one message a sentinel published on its event channels
// (+sdown, +odown, +try-failover, +elected-leader, +switch-master, ...).
type SentinelEvent struct {
	At       time.Time
	Sentinel int    // which sentinel said it
	Event    string // the channel: +sdown, -sdown, +switch-master...
	Detail   string // the message: "master locksim-n0 127.0.0.1 40011"...
}

type sentinelProc struct {
	idx  int
	addr string
	proc *redisProc
}

// sentinels are the cluster's sentinels and what they said.
type sentinels struct {
	procs []*sentinelProc

	stopWatch context.CancelFunc
	watchers  sync.WaitGroup

	mu     sync.Mutex
	events []SentinelEvent
}

// sentinelConf is a sentinel's configuration file; the sentinel rewrites
// it as it learns the topology.
func (c *Cluster) sentinelConf(port int, dir string) string {
	f := c.cfg.Failover
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\n", port)
	fmt.Fprintf(&b, "dir %s\nlogfile %s\n", dir, filepath.Join(dir, sentinelLog))
	for i, n := range c.nodes {
		host, p, _ := net.SplitHostPort(n.Addr())
		name := masterName(i)
		fmt.Fprintf(&b, "sentinel monitor %s %s %s %d\n", name, host, p, SentinelQuorum)
		fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", name, f.DownAfter.Milliseconds())
		fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", name, f.FailoverTimeout.Milliseconds())
		fmt.Fprintf(&b, "sentinel parallel-syncs %s %d\n", name, f.ParallelSyncs)
	}
	return b.String()
}

// startSentinels starts the sentinels, waits until each knows the others
// and every replica, and starts listening to their events.
func (c *Cluster) startSentinels(ctx context.Context) error {
	bin, extra, err := LookupSentinel(c.cfg.Server, c.cfg.RedisServer)
	if err != nil {
		return err
	}
	s := &sentinels{}
	c.sentinels = s
	for k := 0; k < Sentinels; k++ {
		dir := filepath.Join(c.dir, "sentinel"+strconv.Itoa(k))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sentinel %d: %w", k, err)
		}
		p, err := c.startSentinel(ctx, k, bin, extra, dir)
		if err != nil {
			return err
		}
		s.procs = append(s.procs, p)
	}
	if err := c.waitSentinelsReady(ctx); err != nil {
		return err
	}
	watchCtx, stop := context.WithCancel(context.Background())
	s.stopWatch = stop
	for _, p := range s.procs {
		sub := newSentinelControl(p.addr).PSubscribe(watchCtx, "*")
		// The subscription is in place before the run starts.
		if _, err := sub.Receive(ctx); err != nil {
			_ = sub.Close()
			return fmt.Errorf("sentinel %d: subscribe to its events: %w", p.idx, err)
		}
		s.watchers.Add(1)
		go func() {
			defer s.watchers.Done()
			defer sub.Close()
			c.watchSentinel(watchCtx, p.idx, sub)
		}()
	}
	return nil
}

func (c *Cluster) startSentinel(ctx context.Context, k int, bin string, extra []string, dir string) (*sentinelProc, error) {
	conf := filepath.Join(dir, "sentinel.conf")
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("sentinel %d: %w", k, err)
		}
		if err := os.WriteFile(conf, []byte(c.sentinelConf(port, dir)), 0o644); err != nil {
			return nil, fmt.Errorf("sentinel %d: write its config: %w", k, err)
		}
		args := append([]string{conf}, extra...)
		proc, err := startProc(ctx, bin, args, port, dir)
		if err == nil {
			return &sentinelProc{idx: k, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), proc: proc}, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			return nil, fmt.Errorf("sentinel %d: %w", k, err)
		}
	}
}

// waitSentinelsReady: a failover needs a quorum that knows the replica and
// a majority that knows each other (to elect a leader).
func (c *Cluster) waitSentinelsReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, sentinelReadyTimeout)
	defer cancel()
	for _, p := range c.sentinels.procs {
		sc := newSentinelControl(p.addr)
		err := c.waitSentinelReady(ctx, sc)
		_ = sc.Close()
		if err != nil {
			return fmt.Errorf("sentinel %d: %w", p.idx, err)
		}
	}
	return nil
}

func (c *Cluster) waitSentinelReady(ctx context.Context, sc *redis.SentinelClient) error {
	var last string
	for {
		ready := true
		for i := range c.nodes {
			m, err := sc.Master(ctx, masterName(i)).Result()
			switch {
			case err != nil:
				ready, last = false, err.Error()
			case m["num-other-sentinels"] != strconv.Itoa(Sentinels-1) || m["num-slaves"] != strconv.Itoa(c.cfg.Replicas):
				ready = false
				last = fmt.Sprintf("%s: knows %s other sentinel(s) and %s replica(s)", masterName(i), m["num-other-sentinels"], m["num-slaves"])
			}
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %v (%s)", sentinelReadyTimeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// newSentinelControl is the harness's own connection to a sentinel.
func newSentinelControl(addr string) *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{
		Addr:                     addr,
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialTimeout:              clientTimeout,
		ReadTimeout:              clientTimeout,
		WriteTimeout:             clientTimeout,
		PoolSize:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// watchSentinel records what sentinel k publishes, and follows its
// +switch-master announcements.
func (c *Cluster) watchSentinel(ctx context.Context, k int, sub *redis.PubSub) {
	for {
		msg, err := sub.ReceiveMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			select { // the sentinel is gone or the link broke: try again
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if strings.HasPrefix(msg.Channel, "__sentinel__") {
			continue // the sentinels' own hello gossip
		}
		ev := SentinelEvent{At: time.Now(), Sentinel: k, Event: msg.Channel, Detail: msg.Payload}
		c.sentinels.mu.Lock()
		c.sentinels.events = append(c.sentinels.events, ev)
		c.sentinels.mu.Unlock()
		if msg.Channel == "+switch-master" {
			c.followSwitch(msg.Payload)
		}
	}
}

// followSwitch makes the server the sentinels promoted node i for the
// harness (Node, the liveness probe, node faults). Payload: "<name>
// <old-ip> <old-port> <new-ip> <new-port>". Every sentinel announces it; the
// first one does the work.
func (c *Cluster) followSwitch(payload string) {
	f := strings.Fields(payload)
	if len(f) != 5 {
		return
	}
	i, err := strconv.Atoi(strings.TrimPrefix(f[0], "locksim-n"))
	if err != nil || i < 0 || i >= c.cfg.Nodes {
		return
	}
	addr := net.JoinHostPort(f[3], f[4])
	c.mu.Lock()
	if c.nodes[i].Addr() == addr || c.replicas[i] == nil || c.replicas[i].Addr() != addr {
		c.mu.Unlock()
		return
	}
	c.nodes[i], c.replicas[i] = c.replicas[i], c.nodes[i]
	promoted, old := c.nodes[i].(*redisNode), c.replicas[i].(*redisNode)
	c.mu.Unlock()
	old.setReplica(true)
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	_ = promoted.adoptMaster(ctx) // on failure the shifter re-reads the marker
}

// SentinelEvents returns what the sentinels published so far, in the order
// it arrived (nil without sentinels).
func (c *Cluster) SentinelEvents() []SentinelEvent {
	if c.sentinels == nil {
		return nil
	}
	c.sentinels.mu.Lock()
	defer c.sentinels.mu.Unlock()
	return append([]SentinelEvent(nil), c.sentinels.events...)
}

// SentinelAddrs are the sentinels' own addresses (nil without them).
func (c *Cluster) SentinelAddrs() []string {
	if c.sentinels == nil {
		return nil
	}
	var out []string
	for _, p := range c.sentinels.procs {
		out = append(out, p.addr)
	}
	return out
}

// closeSentinels stops listening and kills the sentinels, before the nodes
// go (a sentinel that saw its masters die would start failovers).
func (c *Cluster) closeSentinels() error {
	s := c.sentinels
	if s == nil {
		return nil
	}
	if s.stopWatch != nil {
		s.stopWatch()
	}
	for _, p := range s.procs {
		p.proc.kill()
	}
	s.watchers.Wait()
	return nil
}

// groupOf is the index of the node whose master or replica is at addr.
func (c *Cluster) groupOf(addr string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range c.nodes {
		if n.Addr() == addr || (i < len(c.replicas) && c.replicas[i] != nil && c.replicas[i].Addr() == addr) {
			return i, true
		}
	}
	return 0, false
}

// sentinelClient is simulated client id's connection to node i in sentinel
// mode: a go-redis failover client that asks the sentinels (through the
// client's proxies c<id> <-> s<k>) for the master and dials it through the
// client's proxy c<id> <-> n<i>, which it points at the server the sentinels
// named. Like newNodeClient it never retries a command.
func (c *Cluster) sentinelClient(id, i int) *redis.Client {
	var addrs []string
	for k, a := range c.SentinelAddrs() {
		if via, ok := c.net.DialAddr(network.Link{From: network.ClientEnd(id), To: network.SentinelEnd(k)}); ok {
			a = via
		}
		addrs = append(addrs, a)
	}
	link := network.Link{From: network.ClientEnd(id), To: network.NodeEnd(i)}
	dial := func(ctx context.Context, netw, addr string) (net.Conn, error) {
		// go-redis adds the sentinels the first one names (their own
		// addresses): they too are reached through the client's proxies.
		for k, a := range c.SentinelAddrs() {
			if a != addr {
				continue
			}
			if via, ok := c.net.DialAddr(network.Link{From: network.ClientEnd(id), To: network.SentinelEnd(k)}); ok {
				addr = via
			}
		}
		if g, ok := c.groupOf(addr); ok && g == i {
			if via, ok := c.net.DialAddr(link); ok {
				if err := c.net.RetargetLink(link, addr); err != nil {
					return nil, err
				}
				addr = via
			}
		}
		var d net.Dialer
		return d.DialContext(ctx, netw, addr)
	}
	return redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:            masterName(i),
		SentinelAddrs:         addrs,
		Dialer:                dial,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           clientTimeout,
		ReadTimeout:           clientTimeout,
		WriteTimeout:          clientTimeout,
		PoolSize:              clientPoolSize,
		DisableIdentity:       true,
	})
}
