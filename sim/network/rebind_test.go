package network

import (
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/ports"
)

// greeter accepts connections and writes word on each, until the test ends.
func greeter(t *testing.T, word string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, word)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

func greeting(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, hangGuard)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(hangGuard)))
	b, err := io.ReadAll(c)
	require.NoError(t, err)
	return string(b)
}

// A client proxy's port is the address its clients keep across a
// retarget, which closes the listener and opens it again: it lies outside
// the kernel's ephemeral range (no bind of port 0, no outgoing
// connection's source port takes it meanwhile), no other run can reserve
// it, and a program that holds it a moment only delays the retarget.
func TestRetargetKeepsTheProxyPort(t *testing.T) {
	n := New(Config{}, nil)
	t.Cleanup(func() { _ = n.Close() })
	l := Link{ClientEnd(0), NodeEnd(0)}
	dial, err := n.AddProxy(l, greeter(t, "old"))
	require.NoError(t, err)
	require.Equal(t, "old", greeting(t, dial))

	_, p, err := net.SplitHostPort(dial)
	require.NoError(t, err)
	port, err := strconv.Atoi(p)
	require.NoError(t, err)
	lo, hi := ports.Ephemeral()
	assert.False(t, port >= lo && port <= hi, "proxy port %d is in the ephemeral range %d-%d", port, lo, hi)
	_, err = ports.ReservePort(port)
	require.Error(t, err, "another run reserved a live proxy's port")

	// Between toxiproxy's stop and start, a program binds the port and
	// keeps it a moment.
	api, err := n.api()
	require.NoError(t, err)
	lt := api.(*localToxi)
	px, err := lt.proxy(n.proxies[l].name)
	require.NoError(t, err)
	px.Stop()
	_, err = ports.ReservePort(port)
	require.Error(t, err, "another run reserved a stopped proxy's port")
	squat, err := net.Listen("tcp", dial)
	require.NoError(t, err)
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = squat.Close()
	}()
	require.NoError(t, n.Retarget(NodeEnd(0), greeter(t, "new")))
	assert.Equal(t, "new", greeting(t, dial), "the proxy leads to the new upstream on its port")

	// Closed, the network gives the port back.
	require.NoError(t, n.Close())
	r, err := ports.ReservePort(port)
	require.NoError(t, err, "the port is free once the network closed")
	r.Release()
}

// A program that keeps the port fails the retarget in bounded time,
// naming the proxy and its address.
func TestRetargetOnAPortHeldElsewhereFails(t *testing.T) {
	n := New(Config{}, nil)
	t.Cleanup(func() { _ = n.Close() })
	l := Link{ClientEnd(0), NodeEnd(0)}
	dial, err := n.AddProxy(l, greeter(t, "old"))
	require.NoError(t, err)
	api, err := n.api()
	require.NoError(t, err)
	px, err := api.(*localToxi).proxy(n.proxies[l].name)
	require.NoError(t, err)
	px.Stop()
	squat, err := net.Listen("tcp", dial)
	require.NoError(t, err)
	defer squat.Close()
	began := time.Now()
	err = n.Retarget(NodeEnd(0), greeter(t, "new"))
	require.Error(t, err)
	assert.Less(t, time.Since(began), relistenBound+time.Second)
	assert.Contains(t, err.Error(), "listen again on "+dial+": held by another program")
}
