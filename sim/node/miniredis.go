package node

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/locksim/locksim/internal/miniredis/server"
	"github.com/locksim/locksim/internal/ports"
	"github.com/locksim/locksim/sim/network"
)

// miniNode is an in-process miniredis server whose key expiry follows its
// own nodeClock.
//
// Time: miniredis.ClockTTL(true) makes TTLs shrink by however far the
// server's clock (SetTime) moved since the last database access. The pre-hook
// pushes the node clock into SetTime before every command, so each command
// sees exactly the keys that are alive at the node clock's reading: expiry
// is exact, with no ticker and no FastForward by hand. Kill and restart keep
// the clock running, so keys kept across a restart expire by the downtime,
// as with a real server's absolute expiry times.
type miniNode struct {
	idx   int
	addr  string
	clock *nodeClock
	srv   *miniredis.Miniredis
	gate  gate
	// mem is the in-memory network the node is served on, nil when it
	// listens on a loopback port.
	mem *network.Mem
	// reserved is that loopback port, held until close so that a restart
	// finds it free (internal/ports).
	reserved *ports.Reservation
	// writes feeds the failover emulation (cluster_failover.go); it is
	// on only in clusters with replicas.
	writes writeLog
	// replicated feeds the WAIT emulation (miniredis_wait.go); set
	// only in clusters with replicas.
	replicated replicatedUpToFunc

	pushMu sync.Mutex // orders clock pushes so SetTime never goes backwards

	waits atomic.Int64 // emulated WAITs, for their scheduler keys
	// changes counts what can change the keys other than time: commands
	// let through, kills, restarts, flushes, clock jumps and rate
	// changes, reverts. The observer skips a read that would find what
	// the last one did (observe.go).
	changes atomic.Uint64
	// life serializes kills and restarts; mu guards up and closed and is
	// held only briefly, never across the server's Close (killLocked).
	life   sync.Mutex
	mu     sync.Mutex
	up     bool
	closed bool
}

var (
	_ ClockController   = (*miniNode)(nil)
	_ Pauser            = (*miniNode)(nil)
	_ ProcessController = (*miniNode)(nil)
)

// startMiniNode starts node idx on a loopback port, or on mem when it is
// not nil.
func startMiniNode(idx int, mem *network.Mem) (*miniNode, error) {
	n := &miniNode{idx: idx, clock: newNodeClock(nil), srv: miniredis.NewMiniRedis(), mem: mem}
	// Set the clock before enabling ClockTTL: ClockTTL takes its baseline
	// from the current time, which must already be the node clock.
	n.srv.SetTime(n.clock.now())
	n.srv.ClockTTL(true)
	if err := n.serve(); err != nil {
		return nil, fmt.Errorf("node %d: start miniredis: %w", idx, err)
	}
	if mem != nil {
		n.gate.sched, n.gate.name = mem.Scheduler(), fmt.Sprintf("node/%d", idx)
		n.addr = mem.Listen(fmt.Sprintf("n%d", idx), n.accept)
	} else {
		n.addr = n.srv.Addr()
	}
	n.installHook()
	n.up = true
	return n, nil
}

// serve starts the server: on a loopback port, or, in memory, with no
// listener at all (miniredis starts one without a listener on its first
// Dial). miniredis's own Restart would open a listener, and a listener
// stops a virtual-time bubble's clock for good.
func (n *miniNode) serve() error {
	if n.mem == nil {
		if n.addr == "" {
			var err error
			for range startAttempts { // another program may bind it first
				var r *ports.Reservation
				if r, err = ports.Reserve(); err != nil {
					return err
				}
				if err = n.srv.StartAddr(r.Addr()); err == nil {
					n.reserved = r
					return nil
				}
				r.Release()
			}
			return err
		}
		return n.srv.Restart()
	}
	c, err := n.srv.Dial()
	if err != nil {
		return err
	}
	return c.Close()
}

// accept is a dial to an in-memory node.
func (n *miniNode) accept(link string) (net.Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up {
		return nil, network.ErrRefused
	}
	return network.ServePipe(n.mem.Scheduler(), link, n.srv.Server().ServeConn), nil
}

// installHook sets the pre-hook; miniredis loses it on every restart.
func (n *miniNode) installHook() {
	n.srv.Server().SetPreHook(n.preHook)
}

// preHook runs before every command a client sends.
func (n *miniNode) preHook(p *server.Peer, cmd string, args ...string) bool {
	// Before the script check: a script's effects are its inner writes.
	n.writes.note(cmd, args)
	if scriptCall(p) {
		// The script's own command already passed the gate and set the
		// clock, and it holds the server lock that SetTime would wait for.
		// Redis, too, freezes its clock for the length of a script.
		return false
	}
	if !n.gate.pass() {
		return true // killed while held: drop the command unanswered
	}
	n.changes.Add(1)
	n.pushClock()
	// Just before the command runs: the state it may change, for a
	// failover that must undo it.
	n.snapshotKeys(cmd, args)
	return n.emulateWait(p, cmd, args)
}

// scriptCall reports whether p is a peer miniredis made for one redis.call
// inside a Lua script: those are dispatched through the pre-hook as well,
// while the script holds the server lock.
func scriptCall(p *server.Peer) bool { return miniredis.ScriptCall(p) }

// pushClock hands the node clock to miniredis; the next database access
// expires what the clock's advance has killed.
func (n *miniNode) pushClock() {
	n.pushMu.Lock()
	defer n.pushMu.Unlock()
	n.srv.SetTime(n.clock.now())
}

func (n *miniNode) Index() int       { return n.idx }
func (n *miniNode) Addr() string     { return n.addr }
func (n *miniNode) Backend() Backend { return BackendMiniredis }
func (n *miniNode) Clock() time.Time { return n.clock.now() }

func (n *miniNode) JumpClock(d time.Duration) error {
	if err := n.clock.jump(d); err != nil {
		return fmt.Errorf("node %d: %w", n.idx, err)
	}
	n.changes.Add(1)
	n.pushClock()
	// Any database access runs miniredis's TTL tick; doing it now makes the
	// keys the jump killed vanish at once rather than at the next command.
	n.srv.DB(0)
	return nil
}

func (n *miniNode) SetClockRate(r float64) error {
	if err := n.clock.setRate(r); err != nil {
		return fmt.Errorf("node %d: %w", n.idx, err)
	}
	n.changes.Add(1)
	return nil
}

func (n *miniNode) Pause() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up {
		return fmt.Errorf("node %d: pause: %w", n.idx, ErrNodeDown)
	}
	n.gate.pause()
	return nil
}

func (n *miniNode) Resume() error {
	n.gate.resume()
	return nil
}

func (n *miniNode) Kill() error {
	n.life.Lock()
	defer n.life.Unlock()
	n.killLocked()
	return nil
}

// killLocked stops the server; n.life is held. A dial or a poll of Up
// during the kill must not wait on n.mu while Close waits for the
// connection goroutines: in virtual time a goroutine blocked on a mutex
// keeps the scheduler from letting a released command go on, and Close
// would wait for that command forever. So n.mu only marks the node down
// (a dial after that is refused), and Close runs without it.
func (n *miniNode) killLocked() {
	n.mu.Lock()
	up := n.up
	n.up = false
	n.mu.Unlock()
	if !up {
		return
	}
	n.changes.Add(1)
	// Release held commands first: miniredis's Close waits for every
	// connection goroutine, and a held one would wait for Resume forever.
	n.gate.kill()
	n.srv.Close()
}

func (n *miniNode) Restart(keepData bool) error {
	n.life.Lock()
	defer n.life.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return fmt.Errorf("node %d: restart: %w", n.idx, ErrClusterClosed)
	}
	if n.up {
		return fmt.Errorf("node %d: restart: %w", n.idx, ErrNodeRunning)
	}
	if !keepData {
		// miniredis keeps its data across Restart; losing it is our job.
		n.srv.FlushAll()
	}
	// Close cancelled the server's context, which miniredis's blocking
	// commands watch; a restarted server needs a live one. Nothing else can
	// touch the fields while the server is closed.
	n.srv.Lock()
	n.srv.Ctx, n.srv.CtxCancel = context.WithCancel(context.Background())
	n.srv.Unlock()
	n.gate.revive()
	if err := n.serve(); err != nil {
		return fmt.Errorf("node %d: restart miniredis on %s: %w", n.idx, n.addr, err)
	}
	// Until this line a command could run unhooked; nobody can be paused on
	// a fresh server, and SetTime still holds a clock reading from before the
	// kill, so such a command would at worst see a key that just expired.
	n.installHook()
	n.up = true
	n.changes.Add(1)
	return nil
}

func (n *miniNode) FlushAll() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up {
		return fmt.Errorf("node %d: flushall: %w", n.idx, ErrNodeDown)
	}
	if n.gate.paused() {
		// A paused redis-server could not flush either; keep backends alike.
		return fmt.Errorf("node %d: flushall: %w", n.idx, ErrNodePaused)
	}
	n.srv.FlushAll()
	n.changes.Add(1)
	return nil
}

func (n *miniNode) Up() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.up
}

func (n *miniNode) Emulated() []string {
	out := []string{
		"Lua scripts run on miniredis's gopher-lua interpreter, not Redis's own Lua VM",
	}
	if n.writes.enabled() {
		out = append(out, failoverEmulationNote)
	}
	return out
}

// close stops the node for good.
func (n *miniNode) close() error {
	n.life.Lock()
	defer n.life.Unlock()
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.killLocked()
	n.reserved.Release()
	return nil
}
