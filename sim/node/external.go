package node

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// BackendExternal is Redis servers the user runs (real hosts, managed
// Redis), given by address. The harness cannot control their processes or
// clocks: only network faults (through toxiproxy) and server-side pauses
// (CLIENT PAUSE) work there.
const BackendExternal Backend = "external"

// TimedPauser is a node that can only be paused for a length given up
// front: an external server paused with CLIENT PAUSE ALL cannot be resumed
// early, since the pause holds CLIENT UNPAUSE too.
type TimedPauser interface {
	Node
	PauseFor(d time.Duration) error
}

// externalNode is a server at a user-given address.
type externalNode struct {
	idx  int
	addr string
	ctl  *redis.Client

	mu     sync.Mutex
	closed bool
}

// An external node offers no clock or process control, and only a timed
// pause.
var _ TimedPauser = (*externalNode)(nil)

func (c *Cluster) startExternal(ctx context.Context) error {
	for i, addr := range c.cfg.Addrs {
		n := &externalNode{idx: i, addr: addr, ctl: newControlClient(addr)}
		c.nodes = append(c.nodes, n)
		pctx, cancel := context.WithTimeout(ctx, ctlTimeout)
		err := n.ctl.Ping(pctx).Err()
		cancel()
		if err != nil {
			return fmt.Errorf("external node %d at %s: %w", i, addr, err)
		}
	}
	return nil
}

func (n *externalNode) Index() int       { return n.idx }
func (n *externalNode) Addr() string     { return n.addr }
func (n *externalNode) Backend() Backend { return BackendExternal }

// FlushAll is refused: the servers may hold more than this run's keys.
func (n *externalNode) FlushAll() error {
	return fmt.Errorf("node %d (external %s): FLUSHALL refused: the server is not the harness's to wipe", n.idx, n.addr)
}

// PauseFor sends CLIENT PAUSE d ALL: the server holds every client's
// commands, and runs them when the pause ends.
func (n *externalNode) PauseFor(d time.Duration) error {
	if d < time.Millisecond {
		return fmt.Errorf("node %d (external %s): pause for %v: at least 1ms", n.idx, n.addr, d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	if err := n.ctl.ClientPause(ctx, d).Err(); err != nil {
		return fmt.Errorf("node %d (external %s): CLIENT PAUSE: %w", n.idx, n.addr, err)
	}
	return nil
}

func (n *externalNode) Up() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.closed
}

func (n *externalNode) Emulated() []string {
	return []string{
		"external node: pause-node is CLIENT PAUSE <for> ALL, which holds commands (and expiry) like a stopped process but must be given its length up front",
	}
}

func (n *externalNode) close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	return n.ctl.Close()
}
