package node_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/ports"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// A killed redis-server keeps its port until it restarts: another run
// cannot reserve it, the kernel never hands it out (it lies outside the
// ephemeral range, where a bind of port 0 and an outgoing connection's
// source port come from), and a program that binds it a moment only
// delays the restart. One that keeps it fails the restart in one line
// naming the node and the port.
func TestRestartKeepsItsPort(t *testing.T) {
	simtest.RequireRedisServer(t)
	c, cls := simtest.Cluster(t, node.BackendRedis, 1)
	n, cl := c.Node(0), cls[0]
	pc := n.(node.ProcessController)
	_, p, err := net.SplitHostPort(n.Addr())
	require.NoError(t, err)
	port, err := strconv.Atoi(p)
	require.NoError(t, err)
	lo, hi := ports.Ephemeral()
	assert.False(t, port >= lo && port <= hi, "port %d is in the ephemeral range %d-%d", port, lo, hi)

	require.NoError(t, pc.Kill())
	_, err = ports.ReservePort(port)
	require.Error(t, err, "another run reserved the killed node's port")

	// Some program binds the port for a moment while the node is down.
	l, err := net.Listen("tcp", n.Addr())
	require.NoError(t, err)
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(400 * time.Millisecond)
		_ = l.Close()
	}()
	require.NoError(t, pc.Restart(false), "restart while the port was held a moment")
	<-released
	eventually(t, "old client reconnects", func(ctx context.Context) error { return cl.Ping(ctx).Err() })

	// One that keeps it.
	require.NoError(t, pc.Kill())
	l, err = net.Listen("tcp", n.Addr())
	require.NoError(t, err)
	defer l.Close()
	began := time.Now()
	err = pc.Restart(false)
	require.Error(t, err)
	assert.Less(t, time.Since(began), 15*time.Second, "bounded")
	assert.Regexp(t, `^node 0: restart: port `+p+` stayed taken by another program for `, err.Error())
	assert.NotContains(t, err.Error(), "\n")
	assert.False(t, n.Up())
}
