package network

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/locksim/locksim/vtime"
)

// Mem is the network of an in-memory cluster (Config.InMemory):
// no socket anywhere, so that a run can go in virtual time. Every address
// is an entry in a table (an IP literal of the documentation range,
// 192.0.2.1, which nothing real answers), every connection a memPipe, and
// the proxies are Go values that do to a connection what toxiproxy's
// toxics do (memToxi below), so that a fault means the same in both.
//
// Each connection is named after the dial that made it, "<label>#<n>" for
// the n-th dial of the listener labelled so (a node, "n0", or a proxy, by
// its link; a proxy's connection upstream adds ">"), so that the
// scheduler's keys for its chunks (memPipe) are the same on every run.
// The label, not the address: proxies are made in parallel, and which gets
// which port is the Go scheduler's choice.
type Mem struct {
	sched     *vtime.Scheduler
	mu        sync.Mutex
	listeners map[string]memListener
	dials     map[string]int
	port      int
}

type memListener struct {
	label  string
	accept func(link string) (net.Conn, error)
}

func newMemNet(s *vtime.Scheduler) *Mem {
	return &Mem{sched: s, listeners: map[string]memListener{}, dials: map[string]int{}, port: 1000}
}

// Scheduler is the run's scheduler that deliveries go through (nil: at
// once).
func (m *Mem) Scheduler() *vtime.Scheduler { return m.sched }

// ErrRefused is what dialling an address nobody serves gives, as a TCP
// connect to a closed port would.
var ErrRefused = syscall.ECONNREFUSED

// Listen serves accept, labelled label, at a fresh address and returns it.
func (m *Mem) Listen(label string, accept func(link string) (net.Conn, error)) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.port++
	addr := "192.0.2.1:" + strconv.Itoa(m.port)
	m.listeners[addr] = memListener{label, accept}
	return addr
}

func (m *Mem) unlisten(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.listeners, addr)
}

// Dial connects to addr; it fits go-redis's Options.Dialer.
func (m *Mem) Dial(_ context.Context, _, addr string) (net.Conn, error) {
	return m.dialAs(addr, "")
}

// dialAs dials addr for a connection named after from (a proxy's
// connection upstream is named after the client's connection it carries).
func (m *Mem) dialAs(addr, from string) (net.Conn, error) {
	m.mu.Lock()
	l, ok := m.listeners[addr]
	m.dials[l.label]++
	link := l.label + "#" + strconv.Itoa(m.dials[l.label])
	m.mu.Unlock()
	if from != "" {
		link = from + ">"
	}
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%s: %w", addr, ErrRefused)}
	}
	c, err := l.accept(link)
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
	net    *Mem
	seed   uint64
	prefix string // of proxy names; the rest names the link

	mu      sync.Mutex
	proxies map[string]*memProxy
}

func newMemToxi(m *Mem, seed uint64, prefix string) *memToxi {
	return &memToxi{net: m, seed: seed, prefix: prefix, proxies: map[string]*memProxy{}}
}

// The wire: every chunk through an in-memory proxy takes WireDelay ±
// WireJitter each way, a loopback TCP hop's order of magnitude. Without it
// a command would take no time at all, every client with the same timing
// would move in lockstep (eight clients acquiring at the same instant, in
// every cycle), and races that take a little time on a real network would
// play out one way only. The jitter is drawn from the run's seed.
const (
	WireDelay  = 50 * time.Microsecond
	WireJitter = 40 * time.Microsecond
)

type memProxy struct {
	name string
	addr string
	net  *Mem

	mu       sync.Mutex
	upstream string
	toxics   []memToxic
	conns    map[*memConn]struct{}
	closed   bool

	// seed and stream seed the relays' generators of wire delays, with
	// the connection's name and direction (relay.go).
	seed, stream uint64
}

type memToxic struct {
	name, typ, stream string
	latency, jitter   time.Duration
}

func (t *memToxi) create(name, upstream string) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimPrefix(name, t.prefix)))
	p := &memProxy{name: name, net: t.net, upstream: upstream, conns: map[*memConn]struct{}{},
		seed: t.seed, stream: h.Sum64()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.proxies[name]; dup {
		return "", fmt.Errorf("proxy %s exists", name)
	}
	p.addr = t.net.Listen(strings.TrimPrefix(name, t.prefix), p.accept)
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
// client's pipe, its connection upstream, and the relays that carry each
// direction from one to the other (relay.go).
type memConn struct {
	proxy          *memProxy
	client, server net.Conn
	up, down       *relay
	once           sync.Once
	closed         chan struct{}
}

func (c *memConn) close() {
	c.once.Do(func() {
		close(c.closed)
		c.up.stop()
		c.down.stop()
		c.client.Close()
		c.server.Close()
		c.proxy.mu.Lock()
		delete(c.proxy.conns, c)
		c.proxy.mu.Unlock()
	})
}

// accept is a dial to the proxy: it connects upstream at once, as
// toxiproxy does for each accepted connection, and relays both ways.
func (p *memProxy) accept(link string) (net.Conn, error) {
	p.mu.Lock()
	closed, upstream := p.closed, p.upstream
	p.mu.Unlock()
	if closed {
		return nil, ErrRefused
	}
	theirs, mine := memPipe(p.net.sched, link)
	server, err := p.net.dialAs(upstream, link)
	if err != nil {
		// toxiproxy accepts, fails to reach upstream and hangs up: the
		// client's dial works and its first command finds the line dead.
		mine.Close()
		return theirs, nil
	}
	c := &memConn{proxy: p, client: mine, server: server, closed: make(chan struct{})}
	// Every in-memory connection is a memPipe: what the client writes
	// arrives at the relay upstream as it is written, what the node
	// writes at the relay downstream.
	in, out := mine.(*pipeEnd), server.(*pipeEnd)
	c.up = newRelay(p, c, link, "upstream", out)
	c.down = newRelay(p, c, link, "downstream", in)
	in.rd.relayTo(c.up.arrive)
	out.rd.relayTo(c.down.arrive)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.close()
		return theirs, nil
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	return theirs, nil
}

// ServePipe connects a new client to serve (miniredis's ServeConn) on a
// connection named link and returns the client's end.
func ServePipe(s *vtime.Scheduler, link string, serve func(net.Conn)) net.Conn {
	client, server := memPipe(s, link)
	serve(server)
	return client
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

// fate is what the toxics in force on stream do to a chunk arriving now,
// its wire delay and latency jitter drawn from rnd.
func (p *memProxy) fate(stream string, rnd *rand.Rand) (drop, reset bool, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delay = WireDelay + time.Duration(rnd.Int64N(int64(2*WireJitter)+1)) - WireJitter
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
				d += time.Duration(rnd.Int64N(int64(2*x.jitter))) - x.jitter
			}
			delay += max(d, 0)
		}
	}
	return drop, reset, delay
}
