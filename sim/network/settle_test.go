package network

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settleNetwork is a network on the in-process toxiproxy with a proxy on
// c0<->n0 and one on c0<->n1, leading to a listener that accepts nothing.
func settleNetwork(t *testing.T) *Network {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	n := New(Config{}, nil)
	t.Cleanup(func() { _ = n.Close() })
	for _, l := range []Link{{ClientEnd(0), NodeEnd(0)}, {ClientEnd(0), NodeEnd(1)}} {
		_, err := n.AddProxy(l, ln.Addr().String())
		require.NoError(t, err)
	}
	return n
}

func (n *Network) settling(l Link) time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.settle[n.proxies[l].name]
}

// Ending marks the proxies of the links at the ending endpoint that a delay
// holds data in, for the delay's latency and then some; not the others, and
// not a proxy whose only fault holds nothing (a cut drops what it gets).
func TestEndingLeavesDelayedProxiesToSettle(t *testing.T) {
	n := settleNetwork(t)
	l0, l1 := Link{ClientEnd(0), NodeEnd(0)}, Link{ClientEnd(0), NodeEnd(1)}
	_, err := n.Start([]Link{l0}, LinkFault{Latency: time.Hour})
	require.NoError(t, err)
	_, err = n.Start([]Link{l1}, LinkFault{Cut: true})
	require.NoError(t, err)

	before := time.Now()
	n.Ending(NodeEnd(0))
	n.Ending(NodeEnd(1))
	assert.False(t, n.settling(l0).Before(before.Add(time.Hour)), "held data unwinds within the latency at the earliest")
	assert.True(t, n.settling(l1).IsZero(), "a cut holds nothing")
}

// A toxic call on a settling proxy waits, and gives up with an error, not
// a hang, when the network closes meanwhile.
func TestSettlingEndsWithTheNetwork(t *testing.T) {
	n := settleNetwork(t)
	l0 := Link{ClientEnd(0), NodeEnd(0)}
	_, err := n.Start([]Link{l0}, LinkFault{Latency: time.Hour})
	require.NoError(t, err)
	n.Ending(NodeEnd(0)) // settles in hours: nothing below can wait it out
	n.mu.Lock()
	name := n.proxies[l0].name
	n.mu.Unlock()
	settled := make(chan error, 1)
	go func() { settled <- n.awaitSettled(name) }()
	require.NoError(t, n.Close())
	select {
	case err := <-settled:
		require.ErrorIs(t, err, errNetworkClosed)
	case <-time.After(hangGuard):
		t.Fatalf("hung: still waiting %v after the network closed", hangGuard)
	}
}

// A retarget closes its proxies' connections: the delayed ones settle too.
func TestRetargetLeavesDelayedProxiesToSettle(t *testing.T) {
	n := settleNetwork(t)
	l0 := Link{ClientEnd(0), NodeEnd(0)}
	_, err := n.Start([]Link{l0}, LinkFault{Latency: time.Hour})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	before := time.Now()
	require.NoError(t, n.Retarget(NodeEnd(0), ln.Addr().String()))
	assert.False(t, n.settling(l0).Before(before.Add(time.Hour)))
}

// A toxic call that does not return is reported, not waited for.
func TestBoundedToxicCallReportsAHang(t *testing.T) {
	release := make(chan struct{})
	ended := make(chan struct{})
	err := boundedToxicCall("remove toxic x from proxy p", 10*time.Millisecond, func() error {
		defer close(ended)
		<-release
		return nil
	})
	require.ErrorContains(t, err, "remove toxic x from proxy p: toxiproxy did not return")
	close(release) // the call ends here, for goleak; toxiproxy's would not
	<-ended
	require.NoError(t, boundedToxicCall("quick", hangGuard, func() error { return nil }))
}
