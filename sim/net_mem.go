package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// memNet is the network of an in-memory cluster (ClusterConfig.InMemory):
// no socket anywhere, so that a run can go in virtual time. Every address
// is an entry in a table (an IP literal of the documentation range,
// 192.0.2.1, which nothing real answers), every connection a net.Pipe, and
// the proxies are Go values that do to a connection what toxiproxy's
// toxics do (memToxi below), so that a fault means the same in both.
type memNet struct {
	mu        sync.Mutex
	listeners map[string]func() (net.Conn, error)
	port      int
}

func newMemNet() *memNet {
	return &memNet{listeners: map[string]func() (net.Conn, error){}, port: 1000}
}

// errRefused is what dialling an address nobody serves gives, as a TCP
// connect to a closed port would.
var errRefused = syscall.ECONNREFUSED

// listen serves accept at a fresh address and returns it.
func (m *memNet) listen(accept func() (net.Conn, error)) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.port++
	addr := "192.0.2.1:" + strconv.Itoa(m.port)
	m.listeners[addr] = accept
	return addr
}

func (m *memNet) unlisten(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.listeners, addr)
}

// Dial connects to addr; it fits go-redis's Options.Dialer.
func (m *memNet) Dial(_ context.Context, _, addr string) (net.Conn, error) {
	m.mu.Lock()
	accept, ok := m.listeners[addr]
	m.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%s: %w", addr, errRefused)}
	}
	c, err := accept()
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%s: %w", addr, err)}
	}
	return c, nil
}

// memToxi is toxiproxy done in memory: the same proxy calls (toxiAPI) and
// the same toxics, with toxiproxy's semantics for the three locksim uses:
//   - latency (each stream it is on): every chunk is held until latency ±
//     jitter after it arrived; chunks keep their order.
//   - timeout with timeout 0: every chunk is dropped; removing the toxic
//     closes the connections that lived through it.
//   - reset_peer (downstream, timeout 0): the first chunk that comes back
//     closes the connection instead of being delivered.
type memToxi struct {
	net    *memNet
	seed   uint64
	prefix string // of proxy names; the rest names the link

	mu      sync.Mutex
	proxies map[string]*memProxy
}

func newMemToxi(m *memNet, seed uint64, prefix string) *memToxi {
	return &memToxi{net: m, seed: seed, prefix: prefix, proxies: map[string]*memProxy{}}
}

// The wire: every chunk through an in-memory proxy takes wireDelay ±
// wireJitter each way, a loopback TCP hop's order of magnitude. Without it
// a command would take no time at all, every client with the same timing
// would move in lockstep (eight clients acquiring at the same instant, in
// every cycle), and races that take a little time on a real network would
// play out one way only. The jitter is drawn from the run's seed.
const (
	wireDelay  = 50 * time.Microsecond
	wireJitter = 40 * time.Microsecond
)

type memProxy struct {
	name string
	addr string
	net  *memNet

	mu       sync.Mutex
	upstream string
	toxics   []memToxic
	conns    map[*memConn]struct{}
	rnd      *rand.Rand
	closed   bool
}

type memToxic struct {
	name, typ, stream string
	latency, jitter   time.Duration
}

func (t *memToxi) create(name, upstream string) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimPrefix(name, t.prefix)))
	p := &memProxy{name: name, net: t.net, upstream: upstream, conns: map[*memConn]struct{}{},
		rnd: rand.New(rand.NewPCG(t.seed, h.Sum64()))}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.proxies[name]; dup {
		return "", fmt.Errorf("proxy %s exists", name)
	}
	p.addr = t.net.listen(p.accept)
	t.proxies[name] = p
	return p.addr, nil
}

func (t *memToxi) proxy(name string) (*memProxy, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.proxies[name]
	if !ok {
		return nil, fmt.Errorf("proxy %s: no such proxy", name)
	}
	return p, nil
}

func (t *memToxi) retarget(name, upstream string) error {
	p, err := t.proxy(name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.upstream = upstream
	p.mu.Unlock()
	p.closeConns()
	return nil
}

func (t *memToxi) addToxic(proxy, name, typ, stream string, attrs map[string]any) error {
	p, err := t.proxy(proxy)
	if err != nil {
		return err
	}
	x := memToxic{name: name, typ: typ, stream: stream}
	switch typ {
	case "latency":
		x.latency = millis(attrs["latency"])
		x.jitter = millis(attrs["jitter"])
	case "timeout", "reset_peer":
		if ms := millis(attrs["timeout"]); ms != 0 {
			return fmt.Errorf("toxic %s: only timeout 0 is supported in memory, not %v", typ, ms)
		}
	default:
		return fmt.Errorf("toxic %s: not supported in memory", typ)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.ContainsFunc(p.toxics, func(o memToxic) bool { return o.name == name }) {
		return fmt.Errorf("toxic %s exists on proxy %s", name, proxy)
	}
	p.toxics = append(p.toxics, x)
	return nil
}

// millis reads a toxic attribute given in milliseconds.
func millis(v any) time.Duration {
	switch x := v.(type) {
	case int64:
		return time.Duration(x) * time.Millisecond
	case int:
		return time.Duration(x) * time.Millisecond
	case float64:
		return time.Duration(x * float64(time.Millisecond))
	}
	return 0
}

func (t *memToxi) removeToxic(proxy, name string) error {
	p, err := t.proxy(proxy)
	if err != nil {
		return err
	}
	p.mu.Lock()
	i := slices.IndexFunc(p.toxics, func(o memToxic) bool { return o.name == name })
	if i < 0 {
		p.mu.Unlock()
		return fmt.Errorf("toxic %s: not on proxy %s", name, proxy)
	}
	typ := p.toxics[i].typ
	p.toxics = slices.Delete(p.toxics, i, i+1)
	p.mu.Unlock()
	if typ == "timeout" {
		// toxiproxy's timeout toxic closes its connections when removed.
		p.closeConns()
	}
	return nil
}

func (t *memToxi) remove(name string) error {
	t.mu.Lock()
	p, ok := t.proxies[name]
	delete(t.proxies, name)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("proxy %s: no such proxy", name)
	}
	t.net.unlisten(p.addr)
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.closeConns()
	return nil
}

func (t *memToxi) close() error {
	t.mu.Lock()
	names := make([]string, 0, len(t.proxies))
	for name := range t.proxies {
		names = append(names, name)
	}
	t.mu.Unlock()
	var errs []error
	for _, name := range names {
		errs = append(errs, t.remove(name))
	}
	return errors.Join(errs...)
}

// memConn is one connection through a proxy: the proxy's end of the
// client's pipe, and its connection upstream.
type memConn struct {
	client, server net.Conn
	once           sync.Once
	closed         chan struct{}
}

func (c *memConn) close() {
	c.once.Do(func() {
		close(c.closed)
		c.client.Close()
		c.server.Close()
	})
}

// accept is a dial to the proxy: it connects upstream at once, as
// toxiproxy does for each accepted connection, and pumps both ways.
func (p *memProxy) accept() (net.Conn, error) {
	p.mu.Lock()
	closed, upstream := p.closed, p.upstream
	p.mu.Unlock()
	if closed {
		return nil, errRefused
	}
	mine, theirs := net.Pipe()
	server, err := p.net.Dial(context.Background(), "tcp", upstream)
	if err != nil {
		// toxiproxy accepts, fails to reach upstream and hangs up: the
		// client's dial works and its first command finds the line dead.
		mine.Close()
		return theirs, nil
	}
	c := &memConn{client: mine, server: server, closed: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.close()
		return theirs, nil
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	go p.pump(c, c.client, c.server, "upstream")
	go p.pump(c, c.server, c.client, "downstream")
	return &clientConn{Conn: theirs, peerGone: c.closed}, nil
}

// clientConn is a client's end of an in-memory connection. It tells a
// closed peer the way a TCP socket does: go-redis checks an idle pooled
// connection before reuse through syscall.Conn (a non-blocking read on
// the socket), finds a connection the server closed (a killed node, a
// healed cut) dead and dials afresh, instead of failing the next command.
type clientConn struct {
	net.Conn
	peerGone <-chan struct{}
}

func (c *clientConn) SyscallConn() (syscall.RawConn, error) { return peekConn{c.peerGone}, nil }

// peekConn answers go-redis's health check: Read fails once the peer is
// gone and otherwise reports nothing to read, without touching f (there is
// no descriptor to read from).
type peekConn struct{ peerGone <-chan struct{} }

func (p peekConn) Read(func(fd uintptr) bool) error {
	select {
	case <-p.peerGone:
		return io.EOF
	default:
		return nil
	}
}

func (p peekConn) Control(func(fd uintptr)) error {
	return errors.New("in-memory connection: no descriptor")
}

func (p peekConn) Write(func(fd uintptr) bool) error {
	return errors.New("in-memory connection: no descriptor")
}

// serverConn is a server's end of an in-memory connection: it tells the
// client's end when the server closed it.
type serverConn struct {
	net.Conn
	once sync.Once
	gone chan struct{}
}

func (c *serverConn) Close() error {
	c.once.Do(func() { close(c.gone) })
	return c.Conn.Close()
}

// servePipe connects a new client to serve (miniredis's ServeConn) and
// returns the client's end.
func servePipe(serve func(net.Conn)) net.Conn {
	mine, theirs := net.Pipe()
	s := &serverConn{Conn: theirs, gone: make(chan struct{})}
	serve(s)
	return &clientConn{Conn: mine, peerGone: s.gone}
}

func (p *memProxy) closeConns() {
	p.mu.Lock()
	cs := make([]*memConn, 0, len(p.conns))
	for c := range p.conns {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
}

// pump carries one direction of c, chunk by chunk, through the toxics in
// force on that stream when the chunk arrives.
func (p *memProxy) pump(c *memConn, src, dst net.Conn, stream string) {
	defer func() {
		c.close()
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			arrived := time.Now()
			drop, reset, delay := p.fate(stream)
			switch {
			case reset:
				return
			case drop:
			default:
				if wait := delay - time.Since(arrived); wait > 0 {
					t := time.NewTimer(wait)
					select {
					case <-t.C:
					case <-c.closed:
						t.Stop()
						return
					}
				}
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// fate is what the toxics in force on stream do to a chunk arriving now.
func (p *memProxy) fate(stream string) (drop, reset bool, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delay = wireDelay + time.Duration(p.rnd.Int64N(int64(2*wireJitter)+1)) - wireJitter
	for _, x := range p.toxics {
		if x.stream != stream {
			continue
		}
		switch x.typ {
		case "timeout":
			drop = true
		case "reset_peer":
			reset = true
		case "latency":
			d := x.latency
			if x.jitter > 0 {
				d += time.Duration(p.rnd.Int64N(int64(2*x.jitter))) - x.jitter
			}
			delay += max(d, 0)
		}
	}
	return drop, reset, delay
}
