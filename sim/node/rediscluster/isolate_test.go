package rediscluster

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// A master cut off from the rest of the cluster accepts a write while
// cluster-node-timeout has not passed, then refuses writes with
// CLUSTERDOWN; the majority elects its replica, which never got the
// write; healed, the old master follows the winner and the write is gone.
// On valkey-server CI's catalogue step shows the same through
// cluster-minority-master (TestCatalogueOnValkey).
func TestIsolatedMasterRefusesAndReplicaIsElected(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 60*time.Second)
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := masters[0]
	heirs, err := c.ReplicaOf(ctx, old)
	if err != nil || len(heirs) != 1 {
		t.Fatalf("replicas of %s: %v %v", old, heirs, err)
	}
	key, slot := keyOn(t, ctx, c, old, "lock")
	cl := nodeClient(t, old)

	iso, err := c.IsolateMaster(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	healed := false
	t.Cleanup(func() {
		if !healed {
			_, _ = iso.Heal(ctx)
		}
	})
	// Within the node timeout the master alone acknowledges the write.
	if err := cl.Set(ctx, key, "minority", 0).Err(); err != nil {
		t.Fatalf("write on the isolated master at once: %v", err)
	}
	waitFor(t, 20*time.Second, old+" refusing writes", func() error {
		err := cl.Set(ctx, "{"+key+"}:late", "late", 0).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "CLUSTERDOWN") {
			return errors.New("SET answered " + errText(err))
		}
		return nil
	})
	waitFor(t, 30*time.Second, heirs[0]+"'s election", func() error {
		if iso.Outcome().Winner == "" {
			return errors.New("no winner yet")
		}
		return nil
	})
	out, err := iso.Heal(ctx)
	healed = true
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("isolated %s: refused after %v, %s elected after %v (NodeTimeout %v)", old, out.Refused.Round(time.Millisecond), out.Winner, out.Elected.Round(time.Millisecond), DefaultNodeTimeout)
	if out.Winner != heirs[0] {
		t.Errorf("winner %s, want %s's replica %s", out.Winner, old, heirs[0])
	}
	// The master calls the cluster down only once the timeout passed.
	if out.Refused < DefaultNodeTimeout || out.Refused > 10*DefaultNodeTimeout {
		t.Errorf("refused %v after the cut, want between NodeTimeout and 10 times it", out.Refused)
	}
	if out.Elected < DefaultNodeTimeout || out.Elected > 20*DefaultNodeTimeout {
		t.Errorf("elected %v after the cut, want between NodeTimeout and 20 times it", out.Elected)
	}
	// The winner serves the slot without the write the old master took alone.
	winner := nodeClient(t, out.Winner)
	if n, err := winner.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Errorf("EXISTS %s on the winner: %d %v, want 0: the write never reached it", key, n, err)
	}
	// Healed, the old master hears of the winner's claim and follows it.
	waitFor(t, 20*time.Second, old+" following "+out.Winner, func() error {
		r, err := c.ReplicaOf(ctx, out.Winner)
		if err == nil && !slices.Contains(r, old) {
			err = errors.New("replicas " + strings.Join(r, ","))
		}
		return err
	})
	if owner, err := c.OwnerOf(ctx, slot); err != nil || owner != out.Winner {
		t.Errorf("slot %d owner %s %v, want %s", slot, owner, err, out.Winner)
	}
	// As a replica it answers reads of its own copy after READONLY.
	conn := cl.Conn()
	defer conn.Close()
	if err := conn.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, old+" dropping the write", func() error {
		n, err := conn.Exists(ctx, key).Result()
		if err == nil && n != 0 {
			err = errors.New("the key is still there")
		}
		return err
	})
}

func errText(err error) string {
	if err == nil {
		return "OK"
	}
	return err.Error()
}

// A bus cut closes the connections already through the proxy between the
// parted nodes, refuses new ones until healed, and leaves other pairs'
// connections alone; a connection from an address no node dials from is
// refused.
func TestBusCut(t *testing.T) {
	upstream, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	go func() { // echo
		for {
			c, err := upstream.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	b := newBusNet()
	defer b.stop()
	p, err := b.listen(0)
	if err != nil {
		t.Fatal(err)
	}
	p.setUpstream(upstream.Addr().String())
	dial := func(from string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
		c, err := d.Dial("tcp", p.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	works := func(c net.Conn) error {
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		buf := make([]byte, 4)
		_, err := c.Read(buf)
		return err
	}
	from1, from2 := dial(sourceAddr(1)), dial(sourceAddr(2))
	for _, c := range []net.Conn{from1, from2} {
		if err := works(c); err != nil {
			t.Fatalf("before the cut: %v", err)
		}
	}
	heal := b.cut([]int{0}, []int{1})
	if err := works(from1); err == nil {
		t.Error("node 1's established connection carries traffic across the cut")
	}
	if err := works(from2); err != nil {
		t.Errorf("node 2's connection, not cut: %v", err)
	}
	if err := works(dial(sourceAddr(1))); err == nil {
		t.Error("a new connection from node 1 carries traffic across the cut")
	}
	if err := works(dial("127.0.0.1")); err == nil {
		t.Error("a connection from no node's source address carries traffic")
	}
	heal()
	heal() // a second heal undoes nothing more
	if err := works(dial(sourceAddr(1))); err != nil {
		t.Errorf("after the heal: %v", err)
	}
	for i := range 600 {
		ip := net.ParseIP(sourceAddr(i))
		if got := sourceIndex(ip); got != i {
			t.Fatalf("sourceIndex(sourceAddr(%d) = %s) = %d", i, ip, got)
		}
	}
}
