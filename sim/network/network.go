package network

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/vtime"
)

// Network is the world's network: the links between clients, nodes,
// replicas and the resource, and the faults in force on them.
//
// Links to Redis nodes are real TCP through toxiproxy proxies, one per link
// (client i to node j, replica j to node j), so that a fault can hit one
// link and spare the others; a fault adds toxics to the proxies of the links
// it selects. The proxies run in process, or on a remote toxiproxy server
// driven through its HTTP API (Config.Toxiproxy), which works the
// same. An in-memory cluster (Config.InMemory, for virtual time) has
// no TCP at all: its proxies are Go values with the same toxics (memToxi in
// mem.go). Links the harness carries itself (client to resource, and the
// emulated replication of miniredis nodes) apply the same faults in Go.
//
// What a fault does on a link:
//   - Latency (± Jitter) delays every message, each way, so a round trip
//     takes twice as long more.
//   - Cut: messages vanish both ways (toxiproxy's timeout toxic: a black
//     hole, no reset), so a request times out. Healing closes the
//     connections that lived through the cut, as TCP connections whose
//     retransmissions gave up would be; new ones work at once. On the
//     in-memory resource link a cut holds messages instead and delivers
//     them at the heal (a TCP stream that survived the partition), so that
//     every write the resource gets is in the history with its time.
//   - Reset: each connection is reset as soon as the server side answers
//     (toxiproxy's reset_peer downstream): the command that drew the
//     answer ran, its reply is lost.
type Network struct {
	cfg Config

	toxiOnce sync.Once
	toxi     toxiAPI
	toxiErr  error
	prefix   string // proxy names, unique per network
	mem      *Mem   // the in-memory network; nil on sockets

	mu      sync.Mutex
	proxies map[Link]*linkProxy
	effects map[EffectID]*effect
	nextID  EffectID
	changed chan struct{} // closed and replaced when an effect ends
	closed  bool
	done    chan struct{} // closed by close

	// settle holds, per proxy name, the instant until which its toxics are
	// left alone while connections it carried unwind (settle.go).
	settle map[string]time.Time

	// inMemory counts effects on in-memory links, so that a message on a
	// healthy link costs no lock.
	inMemory atomic.Int32

	// sched lets a message held on an in-memory link go on (transit) in
	// the run's order; transits counts the messages held per link, for
	// their keys.
	sched    *vtime.Scheduler
	transits map[Link]int
}

// Config is what a network needs of its cluster's configuration.
type Config struct {
	// InMemory carries every link in memory, without a socket (virtual
	// time).
	InMemory bool
	// Toxiproxy is the host:port of a toxiproxy server's API that is to
	// hold the proxies; "" runs them in this process.
	Toxiproxy string
	// Seed draws the in-memory network's wire delays.
	Seed uint64
	// EmulatedReplicas says that replication is emulated by the harness
	// (miniredis), so that a replica's link is carried in Go.
	EmulatedReplicas bool
}

// linkProxy is the proxy that carries one link.
type linkProxy struct {
	name     string
	dial     string // the address clients dial
	upstream string
}

// EffectID names one fault in force on the network.
type EffectID int

// LinkFault is what a fault does to each link it selects.
type LinkFault struct {
	Latency time.Duration // each message, each way
	Jitter  time.Duration // Latency ± up to Jitter, uniformly
	Cut     bool          // messages vanish
	Reset   bool          // connections reset as soon as the server answers
}

func (f LinkFault) String() string {
	var parts []string
	if f.Latency > 0 {
		s := "delay " + f.Latency.String()
		if f.Jitter > 0 {
			s += "±" + f.Jitter.String()
		}
		parts = append(parts, s)
	}
	if f.Cut {
		parts = append(parts, "cut")
	}
	if f.Reset {
		parts = append(parts, "reset")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return fmt.Sprint(parts)
}

type effect struct {
	id       EffectID
	links    []Link
	fault    LinkFault
	start    time.Time
	inMemory bool // some of its links are carried in memory
	toxics   []toxicRef
}

type toxicRef struct{ proxy, name string }

var networkSeq atomic.Int64

// New makes the network of a cluster; an in-memory one delivers
// through s (nil: at once).
func New(cfg Config, s *vtime.Scheduler) *Network {
	var mem *Mem
	if cfg.InMemory {
		mem = newMemNet(s)
	}
	return &Network{
		cfg:      cfg,
		mem:      mem,
		prefix:   fmt.Sprintf("locksim-%d-%d-", os.Getpid(), networkSeq.Add(1)),
		proxies:  map[Link]*linkProxy{},
		effects:  map[EffectID]*effect{},
		changed:  make(chan struct{}),
		done:     make(chan struct{}),
		settle:   map[string]time.Time{},
		sched:    s,
		transits: map[Link]int{},
	}
}

// api starts the in-process toxiproxy, or connects to the remote one, on
// first use: a run without network faults starts none.
func (n *Network) api() (toxiAPI, error) {
	n.toxiOnce.Do(func() {
		switch {
		case n.mem != nil:
			n.toxi = newMemToxi(n.mem, n.cfg.Seed, n.prefix)
		case n.cfg.Toxiproxy != "":
			// A failed connection leaves n.toxi nil, not a nil *remoteToxi
			// that Close would call.
			if r, err := newRemoteToxi(n.cfg.Toxiproxy); err != nil {
				n.toxiErr = err
			} else {
				n.toxi = r
			}
		default:
			n.toxi = newLocalToxi()
		}
	})
	return n.toxi, n.toxiErr
}

// AddProxy puts a proxy on link, leading to upstream, and returns the
// address to dial.
func (n *Network) AddProxy(l Link, upstream string) (string, error) {
	api, err := n.api()
	if err != nil {
		return "", err
	}
	name := n.prefix + l.From.String() + "-" + l.To.String()
	dial, err := api.create(name, upstream)
	if err != nil {
		return "", fmt.Errorf("proxy for %s: %w", l, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.proxies[l] = &linkProxy{name: name, dial: dial, upstream: upstream}
	return dial, nil
}

// AddProxies puts a proxy on each of links, leading to upstream(link),
// several at a time.
func (n *Network) AddProxies(links []Link, upstream func(Link) string) error {
	return parallel(links, func(l Link) error {
		_, err := n.AddProxy(l, upstream(l))
		return err
	})
}

// Mem is the in-memory network that carries every connection, nil on
// sockets.
func (n *Network) Mem() *Mem { return n.mem }

// DialAddr is where the From side of link connects: its proxy.
func (n *Network) DialAddr(l Link) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	p, ok := n.proxies[l]
	if !ok {
		return "", false
	}
	return p.dial, true
}

// Retarget points every proxy of a link ending at to at upstream (a
// failover's redirection). Connections through them are closed; the next
// ones reach upstream.
func (n *Network) Retarget(to Endpoint, upstream string) error {
	n.mu.Lock()
	var ps []*linkProxy
	for l, p := range n.proxies {
		if l.To == to && p.upstream != upstream {
			p.upstream = upstream
			ps = append(ps, p)
			n.endingLocked(l, p) // the retarget closes its connections
		}
	}
	n.mu.Unlock()
	if len(ps) == 0 {
		return nil
	}
	api, err := n.api()
	if err != nil {
		return err
	}
	return parallel(ps, func(p *linkProxy) error { return api.retarget(p.name, upstream) })
}

// RetargetLink points link's proxy at upstream, if it does not lead there
// already (a sentinel client following the master it was told of).
func (n *Network) RetargetLink(l Link, upstream string) error {
	n.mu.Lock()
	p, ok := n.proxies[l]
	if !ok || p.upstream == upstream {
		n.mu.Unlock()
		return nil
	}
	p.upstream = upstream
	n.endingLocked(l, p) // the retarget closes its connections
	n.mu.Unlock()
	api, err := n.api()
	if err != nil {
		return err
	}
	return api.retarget(p.name, upstream)
}

// Start puts f in force on links and returns its id for Stop. A link that
// would need a proxy it does not have is refused: a fault that silently did
// nothing would make a run look safe.
func (n *Network) Start(links []Link, f LinkFault) (EffectID, error) {
	if len(links) == 0 {
		return 0, errors.New("network fault: no link selected")
	}
	if f == (LinkFault{}) {
		return 0, errors.New("network fault: nothing to do")
	}
	if f.Latency < 0 || f.Jitter < 0 {
		return 0, fmt.Errorf("network fault %s: negative latency or jitter", f)
	}
	e := &effect{links: slices.Clone(links), fault: f, start: time.Now()}
	var onProxies []*linkProxy
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return 0, errors.New("network fault: the cluster is closed")
	}
	for _, l := range links {
		switch {
		case l.inMemory(n.cfg):
			if f.Reset {
				n.mu.Unlock()
				return 0, fmt.Errorf("link %s: reset needs a TCP connection; this link is carried in memory", l)
			}
			e.inMemory = true
		default:
			p, ok := n.proxies[l]
			if !ok {
				n.mu.Unlock()
				return 0, fmt.Errorf("link %s has no proxy: its client dials the node directly (a run puts clients behind proxies when a fault needs it; see ClusterConfig.ProxiedClients)", l)
			}
			onProxies = append(onProxies, p)
		}
	}
	n.nextID++
	e.id = n.nextID
	n.effects[e.id] = e
	if e.inMemory {
		n.inMemory.Add(1)
	}
	n.mu.Unlock()

	if len(onProxies) > 0 {
		refs, err := n.addToxics(e.id, onProxies, f)
		n.mu.Lock()
		e.toxics = refs
		n.mu.Unlock()
		if err != nil {
			_ = n.Stop(e.id)
			return 0, err
		}
	}
	return e.id, nil
}

// toxics are the toxiproxy toxics that make f: name suffix, type, stream
// and attributes. Latency in toxiproxy is whole milliseconds.
func (f LinkFault) toxics() []toxicSpec {
	var out []toxicSpec
	if f.Latency > 0 || f.Jitter > 0 {
		attrs := map[string]any{"latency": f.Latency.Milliseconds(), "jitter": f.Jitter.Milliseconds()}
		out = append(out, toxicSpec{"latency-up", "latency", "upstream", attrs}, toxicSpec{"latency-down", "latency", "downstream", attrs})
	}
	if f.Cut {
		attrs := map[string]any{"timeout": 0}
		out = append(out, toxicSpec{"cut-up", "timeout", "upstream", attrs}, toxicSpec{"cut-down", "timeout", "downstream", attrs})
	}
	if f.Reset {
		out = append(out, toxicSpec{"reset", "reset_peer", "downstream", map[string]any{"timeout": 0}})
	}
	return out
}

type toxicSpec struct {
	suffix, typ, stream string
	attrs               map[string]any
}

func (n *Network) addToxics(id EffectID, ps []*linkProxy, f LinkFault) ([]toxicRef, error) {
	api, err := n.api()
	if err != nil {
		return nil, err
	}
	specs := f.toxics()
	var mu sync.Mutex
	var refs []toxicRef
	err = parallel(ps, func(p *linkProxy) error {
		if err := n.awaitSettled(p.name); err != nil {
			return err
		}
		for _, s := range specs {
			name := fmt.Sprintf("locksim-e%d-%s", id, s.suffix)
			if err := api.addToxic(p.name, name, s.typ, s.stream, s.attrs); err != nil {
				return fmt.Errorf("add %s toxic to proxy %s: %w", s.typ, p.name, err)
			}
			mu.Lock()
			refs = append(refs, toxicRef{p.name, name})
			mu.Unlock()
		}
		return nil
	})
	return refs, err
}

// Stop heals the fault Start returned id for.
func (n *Network) Stop(id EffectID) error {
	n.mu.Lock()
	e, ok := n.effects[id]
	if !ok {
		n.mu.Unlock()
		return fmt.Errorf("network fault %d: not in force", id)
	}
	delete(n.effects, id)
	refs := e.toxics
	if e.inMemory {
		n.inMemory.Add(-1)
	}
	close(n.changed)
	n.changed = make(chan struct{})
	n.mu.Unlock()
	if len(refs) == 0 {
		return nil
	}
	api, err := n.api()
	if err != nil {
		return err
	}
	return parallel(refs, func(r toxicRef) error {
		if err := n.awaitSettled(r.proxy); err != nil {
			return err
		}
		if err := api.removeToxic(r.proxy, r.name); err != nil {
			return fmt.Errorf("remove toxic %s from proxy %s: %w", r.name, r.proxy, err)
		}
		return nil
	})
}

// Active lists the effects in force, for diagnostics.
func (n *Network) Active() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, e := range n.effects {
		out = append(out, fmt.Sprintf("%s on %v", e.fault, e.links))
	}
	slices.Sort(out)
	return out
}

// Transit carries one message over an in-memory link: it returns once the
// link's faults let the message through, or when ctx ends (then the message
// is delivered at once: the run is over). rnd draws the jitter.
func (n *Network) Transit(ctx context.Context, l Link, rnd *rand.Rand) {
	if n == nil || n.inMemory.Load() == 0 {
		return
	}
	start := time.Now()
	jitter := map[EffectID]time.Duration{} // one draw per effect per message
	key, wakes := "", 0
	for {
		n.mu.Lock()
		cut, delay := false, time.Duration(0)
		for _, e := range n.effects {
			if !e.inMemory || !slices.Contains(e.links, l) {
				continue
			}
			cut = cut || e.fault.Cut
			if e.fault.Latency > 0 || e.fault.Jitter > 0 {
				j, ok := jitter[e.id]
				if !ok && e.fault.Jitter > 0 && rnd != nil {
					j = time.Duration(rnd.Int64N(int64(2*e.fault.Jitter)+1)) - e.fault.Jitter
				}
				jitter[e.id] = j
				delay += max(e.fault.Latency+j, 0)
			}
		}
		wake := n.changed
		n.mu.Unlock()
		var wait time.Duration
		switch {
		case cut:
			start = time.Now() // the latency counts from the heal
			wait = time.Hour   // until the heal wakes us
		case delay > time.Since(start):
			wait = delay - time.Since(start)
		default:
			return
		}
		if key == "" {
			n.mu.Lock()
			n.transits[l]++
			key = fmt.Sprintf("transit/%v#%d", l, n.transits[l])
			n.mu.Unlock()
		}
		t := time.NewTimer(wait)
		var done bool
		select {
		case <-wake: // an effect ended: look again
			t.Stop()
		case <-t.C:
			done = !cut
		case <-ctx.Done():
			t.Stop()
			done = true
		}
		// Woken by a heal, the delay's end or ctx: the message goes on in
		// the run's order among everything else of the instant.
		wakes++
		n.sched.Gate(key + "/" + strconv.Itoa(wakes))
		if done {
			return
		}
	}
}

// ReplicatedUpTo is, for a node whose replication is emulated, the instant
// up to which its writes have reached the replica as of now: a cut
// replication link holds back everything since it began, a delay of d
// everything since now - d (or since the delay began, if later).
func (n *Network) ReplicatedUpTo(node int, now time.Time) time.Time {
	l := Link{ReplicaEnd(node), NodeEnd(node)}
	n.mu.Lock()
	defer n.mu.Unlock()
	upTo := now
	for _, e := range n.effects {
		if !slices.Contains(e.links, l) {
			continue
		}
		if e.fault.Cut && e.start.Before(upTo) {
			upTo = e.start
		}
		if lag := e.fault.Latency + e.fault.Jitter; lag > 0 {
			since := now.Add(-lag)
			if e.start.After(since) {
				since = e.start
			}
			if since.Before(upTo) {
				upTo = since
			}
		}
	}
	return upTo
}

// Close removes every proxy the network made and heals whatever is still in
// force; messages held on in-memory links are let go.
func (n *Network) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.done)
	n.effects = map[EffectID]*effect{}
	n.inMemory.Store(0)
	close(n.changed)
	n.changed = make(chan struct{})
	var names []string
	for _, p := range n.proxies {
		names = append(names, p.name)
	}
	n.proxies = map[Link]*linkProxy{}
	n.mu.Unlock()
	// Waits for a first use in progress, and keeps any later one from
	// starting a toxiproxy nobody would stop.
	n.toxiOnce.Do(func() { n.toxiErr = errors.New("network closed") })
	if n.toxi == nil {
		return nil
	}
	errs := []error{parallel(names, n.toxi.remove)}
	errs = append(errs, n.toxi.close())
	return errors.Join(errs...)
}

// parallel runs f on every item, a few at a time (a remote toxiproxy
// answers each call over HTTP), and joins the errors.
func parallel[T any](items []T, f func(T) error) error {
	const width = 8
	sem := make(chan struct{}, width)
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(it)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
