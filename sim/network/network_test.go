package network

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock/locktest"
)

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]Endpoint{
		"c0": ClientEnd(0), "client3": ClientEnd(3), "client-2": ClientEnd(2), "C1": ClientEnd(1),
		"n4": NodeEnd(4), "node0": NodeEnd(0), "r1": ReplicaEnd(1), "replica-0": ReplicaEnd(0),
		"resource": ResourceEnd,
	} {
		got, err := ParseEndpoint(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		back, err := ParseEndpoint(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, back, "String parses back")
	}
	for _, bad := range []string{"", "c", "x1", "c-1", "c+1", "n1x", "resources"} {
		_, err := ParseEndpoint(bad)
		assert.Error(t, err, bad)
	}
}

var resourceLink = Link{ClientEnd(0), ResourceEnd}

// transitTime carries one message over an in-memory link.
func transitTime(n *Network, l Link) time.Duration {
	start := time.Now()
	n.Transit(context.Background(), l, rand.New(rand.NewPCG(1, 2)))
	return time.Since(start)
}

// hangGuard is simtest.HangGuard (this internal test cannot import
// simtest): it bounds waits for what must happen, never how fast.
const hangGuard = locktest.HangGuard

// transitGuarded carries one message over l and fails the test as hung
// when it has not crossed after hangGuard.
func transitGuarded(t *testing.T, n *Network, l Link) {
	t.Helper()
	done := make(chan struct{})
	go func() { transitTime(n, l); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("hung: a message on %s has not crossed after %v", l, hangGuard)
	}
}

// TestInMemoryLinkDelay: a delayed message arrives at least the latency
// late (a lower bound). Which links are delayed, and that the heal ends the
// delay, are shown with a delay of an hour, which nothing here could sit
// out: the other link's message crosses while the delayed one is held, and
// the heal lets the held one go.
func TestInMemoryLinkDelay(t *testing.T) {
	n := New(Config{EmulatedReplicas: true}, nil)
	defer n.Close()
	transitGuarded(t, n, resourceLink)
	id, err := n.Start([]Link{resourceLink}, LinkFault{Latency: 30 * time.Millisecond})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, transitTime(n, resourceLink), 30*time.Millisecond)
	require.NoError(t, n.Stop(id))
	require.Error(t, n.Stop(id), "stopped twice")

	id, err = n.Start([]Link{resourceLink}, LinkFault{Latency: time.Hour})
	require.NoError(t, err)
	held := make(chan struct{})
	go func() { transitTime(n, resourceLink); close(held) }()
	transitGuarded(t, n, Link{ClientEnd(1), ResourceEnd}) // other clients' links are not delayed
	select {
	case <-held:
		t.Fatal("a message crossed an hour's delay")
	default:
	}
	require.NoError(t, n.Stop(id))
	select {
	case <-held:
	case <-time.After(hangGuard):
		t.Fatalf("hung: the held message did not land %v after the heal", hangGuard)
	}
	transitGuarded(t, n, resourceLink) // healed
}

func TestInMemoryLinkCutHoldsUntilHeal(t *testing.T) {
	n := New(Config{EmulatedReplicas: true}, nil)
	defer n.Close()
	id, err := n.Start([]Link{resourceLink}, LinkFault{Cut: true})
	require.NoError(t, err)
	landed := make(chan time.Time, 1)
	go func() {
		n.Transit(context.Background(), resourceLink, nil)
		landed <- time.Now()
	}()
	select {
	case <-landed:
		t.Fatal("a message crossed a cut link")
	case <-time.After(20 * time.Millisecond):
	}
	healed := time.Now()
	require.NoError(t, n.Stop(id))
	select {
	case at := <-landed:
		assert.False(t, at.Before(healed), "landed before the heal")
	case <-time.After(hangGuard):
		t.Fatalf("hung: the held message did not land %v after the heal", hangGuard)
	}

	// A run that ends lets held messages go.
	_, err = n.Start([]Link{resourceLink}, LinkFault{Cut: true})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	n.Transit(ctx, resourceLink, nil)
}

func TestInMemoryLinkRefusesReset(t *testing.T) {
	n := New(Config{EmulatedReplicas: true}, nil)
	defer n.Close()
	_, err := n.Start([]Link{resourceLink}, LinkFault{Reset: true})
	require.ErrorContains(t, err, "in memory")
	_, err = n.Start([]Link{{ClientEnd(0), NodeEnd(0)}}, LinkFault{Cut: true})
	require.ErrorContains(t, err, "no proxy", "a client without proxies cannot be cut silently")
}

func TestReplicatedUpTo(t *testing.T) {
	n := New(Config{EmulatedReplicas: true}, nil)
	defer n.Close()
	repl := Link{ReplicaEnd(0), NodeEnd(0)}
	now := time.Now()
	assert.Equal(t, now, n.ReplicatedUpTo(0, now), "no lag")
	cut, err := n.Start([]Link{repl}, LinkFault{Cut: true})
	require.NoError(t, err)
	cutAt := n.effects[cut].start
	later := cutAt.Add(time.Second)
	assert.Equal(t, cutAt, n.ReplicatedUpTo(0, later), "nothing since the cut")
	assert.Equal(t, later, n.ReplicatedUpTo(1, later), "node 1's replication is fine")
	require.NoError(t, n.Stop(cut))
	d, err := n.Start([]Link{repl}, LinkFault{Latency: 100 * time.Millisecond})
	require.NoError(t, err)
	dAt := n.effects[d].start
	assert.Equal(t, dAt, n.ReplicatedUpTo(0, dAt.Add(50*time.Millisecond)), "a delay younger than its latency holds back all since it began")
	assert.Equal(t, dAt.Add(400*time.Millisecond), n.ReplicatedUpTo(0, dAt.Add(500*time.Millisecond)))
}
