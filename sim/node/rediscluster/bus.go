package rediscluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// The cluster bus (the nodes' gossip, failure reports and votes) runs
// through proxies of the cluster's own, so that CutBus can part nodes.
// Each node announces its proxy's port as its bus port
// (cluster-announce-bus-port; the harness's CLUSTER MEET names it too), so
// every other node reaches its bus through the proxy; and each node dials
// from a loopback source address of its own (bind-source-addr, see
// sourceAddr), so the proxy knows which node a connection comes from by
// its source address alone. A node's outbound links carry its PINGs and
// the answers to them, so cutting a pair cuts the two connections between
// them, one on each node's proxy.

// busDialTimeout bounds the proxy's dial of the node's own bus port.
const busDialTimeout = time.Second

// sourceAddr is the loopback address node i dials from: 127.100.x.y, one
// per node. Every 127/8 address is the host's own on Linux; the block is
// out of the way of 127.0.0.1, which the nodes listen on.
func sourceAddr(i int) string {
	return fmt.Sprintf("127.100.%d.%d", i/250, i%250+1)
}

// sourceIndex is the node index whose sourceAddr ip is, or -1.
func sourceIndex(ip net.IP) int {
	v4 := ip.To4()
	if v4 == nil || v4[0] != 127 || v4[1] != 100 || v4[3] < 1 || v4[3] > 250 {
		return -1
	}
	return int(v4[2])*250 + int(v4[3]) - 1
}

// busNet is the cluster's bus proxies and the cuts in force between them.
type busNet struct {
	mu      sync.Mutex
	cuts    map[[2]int]int // by node pair (lower index first): cuts in force
	conns   map[*busConn]struct{}
	proxies []*busProxy
	closed  bool
	wg      sync.WaitGroup // accept loops and copies
}

func newBusNet() *busNet {
	return &busNet{cuts: map[[2]int]int{}, conns: map[*busConn]struct{}{}}
}

// busConn is one bus connection through a proxy: from node from to node
// to's bus.
type busConn struct {
	from, to   int
	down, upst net.Conn // the dialing node's side, and to's bus
	once       sync.Once
}

func (c *busConn) close() {
	c.once.Do(func() {
		_ = c.down.Close()
		_ = c.upst.Close()
	})
}

func pair(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// busProxy fronts node to's bus port.
type busProxy struct {
	net      *busNet
	to       int
	ln       net.Listener
	upstream string
}

// listen opens node to's proxy on a free loopback port, forwarding to the
// node's bus at upstream once it runs.
func (b *busNet) listen(to int) (*busProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("open node %d's bus proxy: %w", to, err)
	}
	p := &busProxy{net: b, to: to, ln: ln}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_ = ln.Close()
		return nil, errors.New("open a bus proxy: the cluster is stopping")
	}
	b.proxies = append(b.proxies, p)
	b.wg.Go(p.accept)
	return p, nil
}

func (p *busProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// setUpstream names the node's bus address, before the node starts.
func (p *busProxy) setUpstream(addr string) {
	p.net.mu.Lock()
	p.upstream = addr
	p.net.mu.Unlock()
}

func (p *busProxy) accept() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return // closed by stop
		}
		p.net.wg.Go(func() { p.serve(conn) })
	}
}

// serve refuses a connection from no node of the cluster or across a cut
// (it is closed at once), else carries it to the node's bus until either
// side closes it or a cut does.
func (p *busProxy) serve(down net.Conn) {
	from := -1
	if a, ok := down.RemoteAddr().(*net.TCPAddr); ok {
		from = sourceIndex(a.IP)
	}
	b := p.net
	b.mu.Lock()
	upstream, refused := p.upstream, from < 0 || b.cuts[pair(from, p.to)] > 0 || b.closed
	b.mu.Unlock()
	if refused || upstream == "" {
		_ = down.Close()
		return
	}
	upst, err := net.DialTimeout("tcp", upstream, busDialTimeout)
	if err != nil {
		_ = down.Close() // the node is down: as if its bus port were
		return
	}
	c := &busConn{from: from, to: p.to, down: down, upst: upst}
	b.mu.Lock()
	// A cut may have come while the dial was under way.
	if b.cuts[pair(from, p.to)] > 0 || b.closed {
		b.mu.Unlock()
		c.close()
		return
	}
	b.conns[c] = struct{}{}
	b.mu.Unlock()
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(upst, down); c.close() })
	copies.Go(func() { _, _ = io.Copy(down, upst); c.close() })
	copies.Wait()
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

// cut parts every node of side from every node of others: their bus
// connections are closed and new ones refused until heal undoes this cut.
// Cuts add up: a pair stays parted while any cut holds it.
func (b *busNet) cut(side, others []int) func() {
	var pairs [][2]int
	for _, a := range side {
		for _, o := range others {
			if a != o {
				pairs = append(pairs, pair(a, o))
			}
		}
	}
	b.mu.Lock()
	var doomed []*busConn
	for _, pr := range pairs {
		b.cuts[pr]++
	}
	for c := range b.conns {
		if b.cuts[pair(c.from, c.to)] > 0 {
			doomed = append(doomed, c)
		}
	}
	b.mu.Unlock()
	for _, c := range doomed {
		c.close()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			for _, pr := range pairs {
				if b.cuts[pr]--; b.cuts[pr] <= 0 {
					delete(b.cuts, pr)
				}
			}
		})
	}
}

// parted reports whether a cut holds between nodes a and b.
func (b *busNet) parted(a, o int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cuts[pair(a, o)] > 0
}

// stop closes the proxies and every connection through them, and waits
// for their goroutines.
func (b *busNet) stop() {
	b.mu.Lock()
	b.closed = true
	proxies := b.proxies
	var conns []*busConn
	for c := range b.conns {
		conns = append(conns, c)
	}
	b.mu.Unlock()
	for _, p := range proxies {
		_ = p.ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
	b.wg.Wait()
}

// busPortOf is the bus port a node listening on port has: port+10000, the
// cluster's default (cluster-port is left unset).
func busPortOf(port int) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port+busOffset))
}
