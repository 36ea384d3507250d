package rediscluster

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// forwarder is a trivial TCP proxy to one node that counts the
// connections it carries and, in passing, the redirects in them: the
// -ASK and -MOVED replies from the node and the ASKING commands to it.
type forwarder struct {
	ln      net.Listener
	target  string
	accepts atomic.Int64
	ask     atomic.Int64 // "-ASK " replies
	moved   atomic.Int64 // "-MOVED " replies
	asking  atomic.Int64 // ASKING commands
	marked  atomic.Int64 // mentions of the value the test writes last, markValue

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newForwarder(t *testing.T, target string) *forwarder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forwarder{ln: ln, target: target}
	f.wg.Go(f.serve)
	t.Cleanup(f.close)
	return f
}

func (f *forwarder) addr() string { return f.ln.Addr().String() }

func (f *forwarder) serve() {
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.accepts.Add(1)
		out, err := net.DialTimeout("tcp", f.target, time.Second)
		if err != nil {
			in.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, in, out)
		f.mu.Unlock()
		f.wg.Go(func() {
			f.pipe(out, in, &sniffer{pats: map[string]*atomic.Int64{"asking": &f.asking, markValue: &f.marked}})
		})
		f.wg.Go(func() {
			f.pipe(in, out, &sniffer{pats: map[string]*atomic.Int64{"-ask ": &f.ask, "-moved ": &f.moved}})
		})
	}
}

// pipe copies src to dst through s, and closes both when src ends. The
// sniffer sees each chunk before dst does, so that a count is in place
// by the time the reply it leads to reaches the client.
func (f *forwarder) pipe(dst, src net.Conn, s *sniffer) {
	_, _ = io.Copy(io.MultiWriter(s, dst), src)
	dst.Close()
	src.Close()
}

func (f *forwarder) close() {
	f.ln.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// markValue is the value written after the failover: the proxy that
// carries it carried the write.
const markValue = "after-failover"

// sniffer counts its patterns in what is written to it, case folded,
// including a pattern split between two writes: it keeps the last few
// bytes of each write, fewer than a pattern, to prefix the next.
type sniffer struct {
	pats map[string]*atomic.Int64
	tail []byte
}

func (s *sniffer) Write(p []byte) (int, error) {
	buf := bytes.ToLower(append(s.tail, p...))
	keep := 0
	for pat, n := range s.pats {
		n.Add(int64(bytes.Count(buf, []byte(pat))))
		keep = max(keep, len(pat)-1)
	}
	s.tail = append(s.tail[:0], buf[max(0, len(buf)-keep):]...)
	return len(p), nil
}

// A ClusterClient whose Dialer is Dialer(proxyOf) reaches every master,
// follows ASK during a slot's migration and MOVED after it and after a
// failover, all through the forwarders: every connection it opened is
// one a forwarder carried.
func TestClusterClientThroughProxies(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 40*time.Second)
	fwd := map[string]*forwarder{}
	for _, a := range c.Addrs() {
		fwd[a] = newForwarder(t, a)
	}
	var dials, misses atomic.Int64
	proxyOf := func(node string) string {
		dials.Add(1)
		f, ok := fwd[node]
		if !ok {
			misses.Add(1)
			return ""
		}
		return f.addr()
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                    c.Addrs(),
		Dialer:                   Dialer(proxyOf),
		Protocol:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	defer cc.Close()

	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range masters {
		key, _ := keyOn(t, ctx, c, m, "lock")
		if err := cc.Set(ctx, key, m, 10*time.Second).Err(); err != nil {
			t.Fatalf("SET %s through the proxies: %v", key, err)
		}
		if v, err := nodeClient(t, m).Get(ctx, key).Result(); err != nil || v != m {
			t.Fatalf("GET %s on its master %s: %q %v", key, m, v, err)
		}
		if v, err := cc.Get(ctx, key).Result(); err != nil || v != m {
			t.Fatalf("GET %s through the proxies: %q %v", key, v, err)
		}
		if fwd[m].accepts.Load() == 0 {
			t.Errorf("no connection through %s's proxy", m)
		}
	}

	// The key moves to the target while the slot is still MIGRATING: its
	// old owner answers -ASK and the client asks the target.
	key, slot := keyOn(t, ctx, c, masters[0], "held")
	if err := cc.Set(ctx, key, "token", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	m, err := c.BeginMigration(ctx, slot, masters[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.MigrateKeys(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("slot %d migrating from %s to %s", slot, m.From, m.To)
	if v, err := cc.Get(ctx, key).Result(); err != nil || v != "token" {
		t.Fatalf("GET %s mid-migration: %q %v", key, v, err)
	}
	if fwd[masters[0]].ask.Load() == 0 || fwd[masters[1]].asking.Load() == 0 {
		t.Errorf("mid-migration: %d -ASK from the source, %d ASKING to the target; want both", fwd[masters[0]].ask.Load(), fwd[masters[1]].asking.Load())
	}

	// Once the slot is the target's, the old owner answers -MOVED.
	if err := m.FinishMigration(ctx); err != nil {
		t.Fatal(err)
	}
	movedSrc := fwd[masters[0]].moved.Load()
	if v, err := cc.Get(ctx, key).Result(); err != nil || v != "token" {
		t.Fatalf("GET %s after the migration: %q %v", key, v, err)
	}
	if fwd[masters[0]].moved.Load() == movedSrc {
		t.Error("after the migration: no -MOVED from the old owner")
	}

	// After a failover the client, its slot table stale, meets -MOVED from
	// a node it believes serves the slot and reaches the new master.
	rs, err := c.ReplicaOf(ctx, masters[1])
	if err != nil || len(rs) != 1 {
		t.Fatalf("replicas of %s: %v %v", masters[1], rs, err)
	}
	if err := c.Failover(ctx, rs[0], FailoverDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitPromoted(ctx, rs[0]); err != nil {
		t.Fatal(err)
	}
	movedAll := func() (n int64) {
		for _, f := range fwd {
			n += f.moved.Load()
		}
		return n
	}
	movedBefore := movedAll()
	if err := cc.Set(ctx, key, markValue, 10*time.Second).Err(); err != nil {
		t.Fatalf("SET %s after the failover: %v", key, err)
	}
	if v, err := nodeClient(t, rs[0]).Get(ctx, key).Result(); err != nil || v != markValue {
		t.Fatalf("GET %s on the new master: %q %v", key, v, err)
	}
	t.Logf("failover %s -> %s: the nodes sent %d -MOVED, the new master's proxy carried the write %d times", masters[1], rs[0], movedAll()-movedBefore, fwd[rs[0]].marked.Load())
	if movedAll() == movedBefore || fwd[rs[0]].marked.Load() == 0 {
		t.Error("after the failover: want a -MOVED and the write through the new master's proxy")
	}

	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	var carried int64
	for a, f := range fwd {
		carried += f.accepts.Load()
		t.Logf("proxy of %s: %d connections, %d -ASK, %d ASKING, %d -MOVED", a, f.accepts.Load(), f.ask.Load(), f.asking.Load(), f.moved.Load())
	}
	if misses.Load() != 0 || carried != dials.Load() {
		t.Errorf("the client dialed %d times, %d for nodes without a proxy; the proxies carried %d connections", dials.Load(), misses.Load(), carried)
	}
}
