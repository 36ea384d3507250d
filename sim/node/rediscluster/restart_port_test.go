package rediscluster

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/ports"
)

// A killed node keeps its port and its bus port until it restarts: both
// lie outside the kernel's ephemeral range, no other run can reserve
// them, and a program that binds one a moment only delays the restart; one
// that keeps it fails the restart in one line naming the node and the
// ports, in bounded time.
func TestRestartKeepsItsPorts(t *testing.T) {
	c := startCluster(t, Options{Masters: 3})
	ctx := testCtx(t, 60*time.Second)
	addr := c.Addrs()[2]
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(p)
	lo, hi := ports.Ephemeral()
	for _, q := range []int{port, port + busOffset} {
		if q >= lo && q <= hi {
			t.Errorf("port %d is in the ephemeral range %d-%d", q, lo, hi)
		}
	}
	if err := c.Kill(ctx, addr); err != nil {
		t.Fatal(err)
	}
	for _, q := range []int{port, port + busOffset} {
		if r, err := ports.ReservePort(q); err == nil {
			r.Release()
			t.Errorf("another run reserved port %d of a killed node", q)
		}
	}

	for _, q := range []int{port + busOffset, port} {
		squat, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(q)))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(400 * time.Millisecond)
			_ = squat.Close()
		}()
		if err := c.Restart(ctx, addr); err != nil {
			t.Fatalf("restart while port %d was held a moment: %v", q, err)
		}
		waitFor(t, 5*time.Second, addr+" answering", func() error {
			return nodeClient(t, addr).Ping(ctx).Err()
		})
		if err := c.Kill(ctx, addr); err != nil {
			t.Fatal(err)
		}
	}

	squat, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	began := time.Now()
	err = c.Restart(ctx, addr)
	if err == nil {
		t.Fatal("restart on a port held elsewhere succeeded")
	}
	if took := time.Since(began); took > restartBound+readyTimeout {
		t.Errorf("restart gave up after %v", took)
	}
	want := "rediscluster: restart node 2 (" + addr + "): port " + p + " or its bus port " + strconv.Itoa(port+busOffset) + " stayed taken by another program for "
	if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want one line starting %q", err, want)
	}
}
