package node

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim/recorder"
	"github.com/locksim/locksim/vtime"
)

// observeInterval is how often, in true time, the harness reads the lock
// keys on every node. A node row's bar is as exact as this where the
// design's own operations do not say what the node holds.
const observeInterval = 5 * time.Millisecond

// observeTimeout bounds one read of a node that answers through a
// connection: a paused or dead redis-server is then unknown for a while,
// and the reads of the other nodes, each in its own goroutine, go on.
const observeTimeout = 50 * time.Millisecond

// SkipUnchangedReads lets the observer skip a read in memory that would
// find what the last one did (nodeObserver.unchanged). It is a variable
// so that a test can compare the histories of runs with and without the
// skips, which must be byte for byte the same.
var SkipUnchangedReads = true

// keyView is what one read of a lock key on a node found.
type keyView struct {
	answered bool // false: the node did not answer (down, paused redis-server)
	present  bool
	value    string        // a string's value, or a hash's field names joined by commas
	ttl      time.Duration // left; 0 with noTTL
	noTTL    bool
	err      string
	// On a Redis Cluster node: its role at the read (history.RoleMaster,
	// history.RoleReplica), and the redirect it answered the key's read
	// with when it did not serve the key's slot.
	role     string
	redirect string
}

// same reports whether v and o are one state of the key (the TTL left
// shrinks between reads; only its presence counts).
func (v keyView) same(o keyView) bool {
	return v.answered == o.answered && v.present == o.present && v.value == o.value && v.noTTL == o.noTTL &&
		v.role == o.role && v.redirect == o.redirect
}

// keyReader is a node the harness can read without a connection (an
// in-process miniredis).
type keyReader interface {
	readKey(key string) keyView
	// version is the count of what can have changed the node's keys but
	// time (miniNode.changes), and the node clock's reading.
	version() (changes uint64, clock time.Time)
	// pushClock hands the node clock to the server, as a read does.
	pushClock()
}

// Observers read the run's lock keys on every node every observeInterval
// of true time and record each change as a node record (history.KindNode): what
// the nodes hold, independent of what the designs or their child
// processes say. They read from the harness's side: an in-process
// miniredis directly (no connection, so it works in a virtual-time bubble
// and does not queue behind a paused node's commands), a redis-server
// through a connection of their own, straight to the node's current
// master, never through the network's proxies.
type Observers struct {
	direct []*nodeObserver // read in memory, by one goroutine
	conn   []*nodeObserver // read through a connection, a goroutine each
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// NewObservers makes the observers of the first keys lock keys on c's
// nodes, recording into rec, their ticks going through sched in virtual
// time (nil: a plain ticker), and opens the connections they read
// through, so that their first read, at true time 0, does not wait for a
// dial.
func NewObservers(c *Cluster, keys int, rec *recorder.Recorder, sched *vtime.Scheduler) *Observers {
	obs := &Observers{done: make(chan struct{})}
	names := make([]string, keys)
	for k := range names {
		names[k] = fmt.Sprintf("locksim:%d", k)
	}
	for i, n := range c.Nodes() {
		o := &nodeObserver{cluster: c, rec: rec, sched: sched, node: i, keys: names, last: make([]keyView, keys),
			seen: make([]bool, keys), prev: make([]time.Duration, keys)}
		if _, ok := n.(keyReader); ok {
			obs.direct = append(obs.direct, o)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
		_ = o.conn(n.Addr()).Ping(ctx).Err() // a failure shows in the reads
		cancel()
		obs.conn = append(obs.conn, o)
	}
	return obs
}

// Start starts the reads. Nodes read in memory share one goroutine (in
// virtual time each goroutine's wake-up is CPU); nodes read through a
// connection get one each, so that one that does not answer delays no
// other.
func (obs *Observers) Start() {
	for _, o := range obs.conn {
		obs.wg.Add(1)
		go func() { defer obs.wg.Done(); poll(obs.done, fmt.Sprintf("observe/%d", o.node), true, o) }()
	}
	if len(obs.direct) > 0 {
		obs.wg.Add(1)
		go func() { defer obs.wg.Done(); poll(obs.done, "observe/direct", false, obs.direct...) }()
	}
}

// Stop ends every goroutine Start started and closes the connections; it
// is idempotent, and closes the connections of observers never started.
func (obs *Observers) Stop() {
	obs.once.Do(func() {
		close(obs.done)
		obs.wg.Wait()
		for _, o := range obs.conn {
			o.close()
		}
	})
}

// poll reads with each observer at once and every observeInterval until
// done. With gated, each tick in virtual time goes through the run's
// scheduler, under "<name>#<n>", as a read through a connection must: it
// posts its command among the instant's other events.
//
// Reads in memory need no pick. In a virtual-time bubble the clock
// reaches a tick's instant only once every goroutine is blocked and the
// scheduler has nothing pending, and the scheduler picks the instant's
// first event only after this goroutine has blocked again, so a read made
// as the tick wakes it sees the nodes as every earlier instant left them,
// on every run of the seed alike. A change made at the tick's instant
// shows at the next tick, with the tick's instant as its earliest time:
// a row stays as exact as observeInterval, and a run saves a pick and a
// wait for the bubble per tick.
func poll(done <-chan struct{}, name string, gated bool, obs ...*nodeObserver) {
	t := time.NewTicker(observeInterval)
	defer t.Stop()
	sched := obs[0].sched
	for tick := 1; ; tick++ {
		for _, o := range obs {
			o.read()
		}
		select {
		case <-done:
			return
		case <-t.C:
			if gated {
				sched.Gate(name + "#" + strconv.Itoa(tick))
			}
		}
	}
}

// nodeObserver reads one node's lock keys.
type nodeObserver struct {
	cluster *Cluster
	rec     *recorder.Recorder
	sched   *vtime.Scheduler
	node    int
	keys    []string
	last    []keyView // per key, the last state recorded
	seen    []bool    // per key, whether a state was recorded
	// prev is, per key, when the read before this one was sent: the
	// state it found lasted at least until then.
	prev []time.Duration
	// conns: clients of the node's masters by address (a failover
	// changes the master), for nodes read through a connection.
	conns map[string]*redis.Client
	// Of the last read in memory: the node read, its version, and per
	// key the TTL left (0: none or absent). A read that would find the
	// same is skipped (unchanged).
	readNode    Node
	readChanges uint64
	readClock   time.Time
	readTTL     []time.Duration
}

// unchanged reports whether reading r now would find every key as the
// last read did, but for the TTLs left: the same node, nothing but time
// acted on it since, and no key's TTL can have run out (miniredis expires a
// key once the node clock has moved its TTL on). Every key was read before.
func (o *nodeObserver) unchanged(n Node, changes uint64, clock time.Time) bool {
	if !SkipUnchangedReads || o.readNode != n || o.readChanges != changes || o.readTTL == nil {
		return false
	}
	elapsed := clock.Sub(o.readClock)
	for k, ttl := range o.readTTL {
		if !o.seen[k] || ttl > 0 && elapsed >= ttl {
			return false
		}
	}
	return true
}

// read reads every key once and records those whose state changed.
//
// A node read in memory whose read would find what the last one did is
// not read: each key's state is known to have lasted until now, as the
// read would have shown. The node clock still goes to the server, so that
// what reads the server without pushing it (a failover's revert) sees the
// time a read would have left; the TTL tick is left to the next access,
// which subtracts the same time in one step.
func (o *nodeObserver) read() {
	n := o.cluster.Node(o.node)
	r, inMemory := n.(keyReader)
	if inMemory {
		changes, clock := r.version()
		if o.unchanged(n, changes, clock) {
			r.pushClock()
			now := o.rec.Now()
			for k := range o.prev {
				o.prev[k] = now
			}
			return
		}
		if o.readTTL == nil {
			o.readTTL = make([]time.Duration, len(o.keys))
		}
		o.readNode, o.readChanges, o.readClock = n, changes, clock
	}
	for k, key := range o.keys {
		call := o.rec.Now()
		var v keyView
		if inMemory {
			v = r.readKey(key)
			o.readTTL[k] = 0
			if v.answered && v.present && !v.noTTL {
				o.readTTL[k] = v.ttl
			}
		} else {
			v = o.readConn(n.Addr(), key)
		}
		since := o.prev[k]
		o.prev[k] = call
		if o.seen[k] && v.same(o.last[k]) {
			continue
		}
		if !o.seen[k] {
			since = call
		}
		o.seen[k], o.last[k] = true, v
		// The change happened after the previous read was sent and before
		// this one's answer was in hand.
		op := history.Op{Kind: history.KindNode, Client: history.NoClient, Node: o.node, Key: key, Call: since, Return: o.rec.Now()}
		switch {
		case !v.answered:
			op.Outcome, op.Err = history.Unknown, v.err
		case !v.present:
			op.Outcome = history.Fail
		default:
			op.Outcome, op.Value, op.TTL, op.NoTTL = history.OK, v.value, v.ttl, v.noTTL
		}
		if v.answered {
			op.Role, op.Event = v.role, v.redirect
		}
		o.rec.Add(op)
	}
}

// readConn reads key on the node at addr through the observer's own
// connection: TYPE, PTTL and GET in one round trip, HKEYS for a hash; on a
// Redis Cluster ROLE in the same round trip.
func (o *nodeObserver) readConn(addr, key string) keyView {
	c := o.conn(addr)
	ctx, cancel := context.WithTimeout(context.Background(), observeTimeout)
	defer cancel()
	cluster := o.cluster.rc != nil
	p := c.Pipeline()
	// On a cluster: the node's role, and a plain read of the key's type
	// that says whether the node serves its slot; each read after that
	// goes with ASKING, so that a node importing the slot shows the copy
	// a migration gave it (a node that neither serves nor imports the
	// slot redirects those too).
	var role *redis.Cmd
	var plain *redis.StatusCmd
	asking := func(p redis.Pipeliner) {
		if cluster {
			p.Do(ctx, "ASKING")
		}
	}
	if cluster {
		role, plain = p.Do(ctx, "ROLE"), p.Type(ctx, key)
	}
	asking(p)
	typ := p.Type(ctx, key)
	asking(p)
	pttl := p.PTTL(ctx, key)
	asking(p)
	get := p.Get(ctx, key)
	_, _ = p.Exec(ctx)
	redirect := ""
	if plain != nil {
		if err := plain.Err(); err != nil && redirected(err) {
			redirect = strings.Fields(err.Error())[0]
		}
	}
	if err := typ.Err(); err != nil {
		if redirected(err) {
			// A cluster node that neither serves nor imports the key's
			// slot holds no copy of it.
			return keyView{answered: true, role: roleOf(role), redirect: strings.Fields(err.Error())[0]}
		}
		return keyView{err: err.Error()}
	}
	if redirect != "" {
		// redirected plainly, answered after ASKING: it imports the slot
		redirect = history.RedirectImporting
	}
	v := keyView{answered: true, present: typ.Val() != "none", role: roleOf(role), redirect: redirect}
	if !v.present {
		return v
	}
	switch typ.Val() {
	case "string":
		v.value = get.Val()
	case "hash":
		hp := c.Pipeline()
		asking(hp)
		hkeys := hp.HKeys(ctx, key)
		_, _ = hp.Exec(ctx)
		fields, err := hkeys.Result()
		if err != nil {
			return keyView{err: err.Error()}
		}
		slices.Sort(fields)
		v.value = strings.Join(fields, ",")
	default:
		v.value = "(" + typ.Val() + ")"
	}
	v.setTTL(pttl.Val())
	return v
}

// conn is the observer's client of the master at addr.
func (o *nodeObserver) conn(addr string) *redis.Client {
	if o.conns == nil {
		o.conns = map[string]*redis.Client{}
	}
	c, ok := o.conns[addr]
	if !ok && o.cluster.rc != nil {
		c = newReadonlyClient(addr) // a replica answers with its copy
		o.conns[addr] = c
	}
	if !ok && c == nil {
		c = newNodeClient(addr, nil)
		o.conns[addr] = c
	}
	return c
}

// roleOf is the role ROLE answered (history.RoleMaster or
// history.RoleReplica), "" when it was not asked or did not answer so.
func roleOf(cmd *redis.Cmd) string {
	if cmd == nil {
		return ""
	}
	reply, err := cmd.Slice()
	if err != nil || len(reply) == 0 {
		return ""
	}
	switch reply[0] {
	case "master":
		return history.RoleMaster
	case "slave":
		return history.RoleReplica
	}
	return ""
}

// redirected reports whether err is a cluster node's redirect (MOVED, ASK)
// or its refusal to serve a slot it is importing (TRYAGAIN).
func redirected(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "MOVED ") || strings.HasPrefix(s, "ASK ") || strings.HasPrefix(s, "TRYAGAIN")
}

// setTTL takes the TTL left as PTTL reports it (negative: none).
func (v *keyView) setTTL(left time.Duration) {
	if left < 0 {
		v.noTTL = true
		return
	}
	v.ttl = left
}

func (o *nodeObserver) close() {
	for _, c := range o.conns {
		_ = c.Close()
	}
}

func (n *miniNode) version() (uint64, time.Time) { return n.changes.Load(), n.clock.now() }

// readKey reads key in the server's memory, after pushing the node clock
// so that what has expired by it is gone. A paused node is read all the
// same: its memory still holds the key.
func (n *miniNode) readKey(key string) keyView {
	n.mu.Lock()
	up := n.up
	n.mu.Unlock()
	if !up {
		return keyView{err: ErrNodeDown.Error()}
	}
	n.pushClock()
	db := n.srv.DB(0) // runs the TTL tick
	v := keyView{answered: true, present: db.Exists(key)}
	if !v.present {
		return v
	}
	switch t := db.Type(key); t {
	case "string":
		v.value, _ = db.Get(key)
	case "hash":
		fields, _ := db.HKeys(key)
		slices.Sort(fields)
		v.value = strings.Join(fields, ",")
	default:
		v.value = "(" + t + ")"
	}
	if ttl := db.TTL(key); ttl > 0 {
		v.ttl = ttl
	} else {
		v.noTTL = true
	}
	return v
}
