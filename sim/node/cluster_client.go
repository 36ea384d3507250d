package node

import (
	"context"
	"net"
	"time"

	"github.com/locksim/locksim/sim/network"
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
// Like every client the harness makes for the simulation, it sees a
// restarted node on its next command (see clientPoolSize).
//
// It dials node i's current master directly, never through the network's
// proxies: it is the harness's view (the liveness probe, tests), not a
// simulated client's.
func (c *Cluster) NewClient(i int) *redis.Client {
	return newNodeClient(c.Node(i).Addr(), c.net.Mem())
}

// NewClients returns one fresh client per node, in index order; on the
// redis-cluster backend one ClusterClient of the whole cluster.
func (c *Cluster) NewClients() []redis.UniversalClient {
	if c.rc != nil {
		return c.clusterClients()
	}
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
// straight to the nodes; on the redis-cluster backend one ClusterClient
// that reaches every node through the client's proxy for it. The caller
// closes them.
func (c *Cluster) ClientConns(id int) []redis.UniversalClient {
	if c.rc != nil {
		return c.clusterClientConns(id)
	}
	nodes := c.Nodes()
	cs := make([]redis.UniversalClient, len(nodes))
	for i, n := range nodes {
		if c.cfg.Sentinel() {
			cs[i] = c.sentinelClient(id, i)
			continue
		}
		addr, ok := c.net.DialAddr(network.Link{From: network.ClientEnd(id), To: network.NodeEnd(i)})
		if !ok {
			addr = n.Addr()
		}
		cs[i] = newNodeClient(addr, c.net.Mem())
	}
	return cs
}

// clientPoolSize is the connection pool of every client the harness
// makes, on every backend and in both modes of time.
//
// go-redis's pool is also a dial circuit breaker: after as many failed
// dials in a row as the pool size, the client stops dialing and returns
// the last dial error, while a goroutine probes the node once a second of
// wall time. With go-redis's small pools a client that retried a few times
// against a killed node then saw it back up to a second after its restart:
// on redis-server a setpx lease broken by a restart without data was
// granted to nobody else while its holder was inside, because the other
// client could not see the restarted node for 950 ms, and in virtual time
// (a pool of 64) the same scenario failed in 9 runs of 10. A pool this
// large keeps the breaker shut for the thousand failed attempts of a run's
// longest outage, so a client sees a node on its first attempt after the
// node is back, in real and in virtual time alike; the lock designs, not
// the client library's back-off, decide who gets the lock.
//
// It also means that no client waits for a free connection: in virtual
// time such a wait would be on a timer from a pool that go-redis shares
// process-wide, and a timer made in one bubble must not be used in
// another.
const clientPoolSize = 1024

// memBufferSize is the read and the write buffer of each connection of a
// client on the in-memory network. go-redis allocates and zeroes its
// buffers (32 KiB each by default, 128 KiB in its pipeline pool) on every
// dial, and a run in virtual time dials afresh after every connection a
// fault or a timeout broke and for every unlock subscription, so at the
// default size those buffers lead what an explored run allocates. Every
// command the Go designs send fits in 4 KiB, so a command is still one
// write, one chunk on the pipe, and a run's events are the same; a longer
// reply is read in more than one Read, which posts nothing.
const memBufferSize = 4 << 10

// newNodeClient returns a client of addr, reached on mem when it is not nil.
func newNodeClient(addr string, mem *network.Mem) *redis.Client {
	var dial func(ctx context.Context, network, addr string) (net.Conn, error)
	bufSize := 0 // go-redis's default, 32 KiB a buffer
	if m := mem; m != nil {
		dial = m.Dial
		bufSize = memBufferSize
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
		PoolSize:              clientPoolSize,
		ReadBufferSize:        bufSize,
		WriteBufferSize:       bufSize,
		// The pipeline pool's buffers default to 128 KiB each.
		PipelineReadBufferSize:  bufSize,
		PipelineWriteBufferSize: bufSize,
		// No CLIENT SETINFO or maintenance-notification handshake: fewer
		// round trips on every reconnect, nothing the simulator needs.
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}
