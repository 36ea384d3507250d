package sim

import (
	"context"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

const clientTimeout = time.Second

// NewClient returns a fresh client for node i; the caller closes it.
//
// It honours context deadlines (ContextTimeoutEnabled) and never retries a
// command (MaxRetries -1): a retried SET NX whose first reply was lost would
// put an operation into the history that the client never meant. It dials
// once per attempt, so a killed node fails fast instead of after go-redis's
// default dial retries.
//
// Beware go-redis's dial circuit breaker: after as many failed dials in a
// row as the pool size (4), the client refuses to dial and probes the node
// only once a second, so it may see a restarted node up to a second late.
//
// It dials node i's current master directly, never through the network's
// proxies: it is the harness's view (the liveness probe, tests), not a
// simulated client's.
func (c *Cluster) NewClient(i int) *redis.Client {
	return newNodeClient(c.Node(i).Addr(), 4, c.net.mem)
}

// NewClients returns one fresh client per node, in index order.
func (c *Cluster) NewClients() []redis.UniversalClient {
	nodes := c.Nodes()
	cs := make([]redis.UniversalClient, len(nodes))
	for i := range nodes {
		cs[i] = c.NewClient(i)
	}
	return cs
}

// ClientConns returns simulated client id's connections, one per node in
// index order: through the client's own proxies when it has them (see
// ClusterConfig.ProxiedClients), so that network faults reach it, else
// straight to the nodes. The caller closes them.
func (c *Cluster) ClientConns(id int) []redis.UniversalClient {
	nodes := c.Nodes()
	cs := make([]redis.UniversalClient, len(nodes))
	for i, n := range nodes {
		if c.cfg.Sentinel() {
			cs[i] = c.sentinelClient(id, i)
			continue
		}
		addr, ok := c.net.dialAddr(Link{ClientEnd(id), NodeEnd(i)})
		if !ok {
			addr = n.Addr()
		}
		cs[i] = newNodeClient(addr, 4, c.net.mem)
	}
	return cs
}

// newNodeClient returns a client of addr, reached on mem when it is not nil.
func newNodeClient(addr string, poolSize int, mem *memNet) *redis.Client {
	var dial func(ctx context.Context, network, addr string) (net.Conn, error)
	if m := mem; m != nil {
		dial = m.Dial
		// A client that waits for a free connection waits on a timer from
		// a pool that go-redis shares process-wide; a timer made in one
		// virtual-time bubble must not be used in another. Enough
		// connections that nobody waits.
		poolSize = 64
	}
	return redis.NewClient(&redis.Options{
		Dialer:                dial,
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		DialerRetries:         1,
		DialTimeout:           clientTimeout,
		ReadTimeout:           clientTimeout,
		WriteTimeout:          clientTimeout,
		PoolSize:              poolSize,
		// No CLIENT SETINFO or maintenance-notification handshake: fewer
		// round trips on every reconnect, nothing the simulator needs.
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}
