package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/internal/ports"
)

const (
	startAttempts = 5               // fresh ports tried when another program binds one first
	ctlTimeout    = 2 * time.Second // bound on one harness command to a node
)

// redisNode is a redis-server process the harness starts, stops, pauses and
// kills. Its expiry follows the host clock, which the harness cannot move, so
// the node clock is emulated by shifting TTLs (see redis_clock.go).
type redisNode struct {
	idx         int
	port        int
	reserved    *ports.Reservation // port, held until close so that a restart finds it free
	addr        string
	dir         string // this node's data directory, inside the cluster's temp dir
	bin         string
	persistence Persistence
	clock       *nodeClock

	mu     sync.Mutex    // guards the fields below; serializes lifecycle changes
	proc   *redisProc    // nil while killed
	ctl    *redis.Client // the harness's own connection to the running process
	paused bool
	closed bool
	// replica: the process replicates a master (cluster_failover.go); its
	// TTLs follow the master's, so its own clock emulation stays idle.
	replica bool
	// epoch counts process starts; epochLead is the node clock's lead when
	// the current process started (see shifter.catchUp).
	epoch     int
	epochLead time.Duration

	shift shifter

	stopLoop   context.CancelFunc // ends the shifter's loop
	loopExited chan struct{}
}

var (
	_ ClockController   = (*redisNode)(nil)
	_ Pauser            = (*redisNode)(nil)
	_ ProcessController = (*redisNode)(nil)
)

func startRedisNode(ctx context.Context, idx int, bin, dir string, p Persistence) (*redisNode, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("node %d: %w", idx, err)
	}
	n := &redisNode{idx: idx, dir: dir, bin: bin, persistence: p, clock: newNodeClock(nil)}
	var err error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("node %d: %w", idx, err)
		}
		if n.reserved, err = ports.Reserve(); err != nil {
			return nil, fmt.Errorf("node %d: %w", idx, err)
		}
		n.port = n.reserved.Port()
		n.proc, err = startRedisProc(ctx, bin, n.port, dir, p)
		if err == nil {
			break
		}
		n.reserved.Release()
		if !errors.Is(err, errPortTaken) {
			return nil, fmt.Errorf("node %d: %w", idx, err)
		}
		if attempt == startAttempts {
			return nil, fmt.Errorf("node %d: %d ports in a row were taken before redis-server could bind them: %w", idx, attempt, err)
		}
	}
	n.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port))
	n.ctl = newControlClient(n.addr)
	n.epoch, n.epochLead = 1, n.clock.lead()
	n.shift.node = n
	// Nobody else knows the address yet, so this first catch-up records a
	// zero clock lead before any client key exists.
	if err := n.shift.catchUp(ctx); err != nil {
		n.close()
		return nil, fmt.Errorf("node %d: %w", idx, err)
	}
	loopCtx, stop := context.WithCancel(context.Background())
	n.stopLoop, n.loopExited = stop, make(chan struct{})
	go n.shift.loop(loopCtx, n.loopExited)
	return n, nil
}

// newControlClient is the harness's connection for its own scripts: no
// retries, since a retried TTL shift must not be applied twice.
func newControlClient(addr string) *redis.Client {
	return newNodeClient(addr, nil)
}

func (n *redisNode) Index() int       { return n.idx }
func (n *redisNode) Addr() string     { return n.addr }
func (n *redisNode) Backend() Backend { return BackendRedis }
func (n *redisNode) Clock() time.Time { return n.clock.now() }

// JumpClock applies the jump to the keys at once when it can; a paused or
// killed node gets it on Resume or Restart, as a real server would find its
// clock moved when it runs again.
func (n *redisNode) JumpClock(d time.Duration) error {
	if err := n.clock.jump(d); err != nil {
		return fmt.Errorf("node %d: %w", n.idx, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	if err := n.shift.catchUp(ctx); err != nil {
		return fmt.Errorf("node %d: clock jump %v: %w", n.idx, d, err)
	}
	return nil
}

func (n *redisNode) SetClockRate(r float64) error {
	if err := n.clock.setRate(r); err != nil {
		return fmt.Errorf("node %d: %w", n.idx, err)
	}
	return nil
}

func (n *redisNode) Pause() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningLocked() {
		return fmt.Errorf("node %d: pause: %w", n.idx, ErrNodeDown)
	}
	if n.paused {
		return nil
	}
	if err := n.proc.signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("node %d: pause: %w", n.idx, err)
	}
	n.paused = true
	return nil
}

func (n *redisNode) Resume() error {
	n.mu.Lock()
	if !n.paused || n.proc == nil {
		n.mu.Unlock()
		return nil
	}
	if err := n.proc.signal(syscall.SIGCONT); err != nil {
		n.mu.Unlock()
		return fmt.Errorf("node %d: resume: %w", n.idx, err)
	}
	n.paused = false
	n.mu.Unlock()

	// The node clock kept running (and may have jumped) while the process
	// was stopped; apply that now instead of at the shifter's next tick.
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	if err := n.shift.catchUp(ctx); err != nil {
		return fmt.Errorf("node %d: resume: %w", n.idx, err)
	}
	return nil
}

func (n *redisNode) Kill() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.killLocked()
	return nil
}

func (n *redisNode) killLocked() {
	if n.proc == nil {
		return
	}
	n.proc.kill()
	n.proc = nil
	n.paused = false
	if n.ctl != nil {
		_ = n.ctl.Close()
		n.ctl = nil
	}
}

func (n *redisNode) Restart(keepData bool) error {
	if err := n.restart(keepData); err != nil {
		return fmt.Errorf("node %d: restart: %w", n.idx, err)
	}
	// Clients may be back before this catch-up; the shift script counts the
	// lead from the restart on for keys it finds on an empty node, so their
	// keys get what they are owed.
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	if err := n.shift.catchUp(ctx); err != nil {
		return fmt.Errorf("node %d: restart: %w", n.idx, err)
	}
	return nil
}

func (n *redisNode) restart(keepData bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClusterClosed
	}
	if n.proc != nil {
		if n.proc.alive() {
			return ErrNodeRunning
		}
		n.killLocked() // it died on its own; tidy up before starting again
	}
	if !keepData {
		if err := n.wipeData(); err != nil {
			return err
		}
	}
	lead := n.clock.lead()
	proc, err := restartProc(context.Background(), func(ctx context.Context) (*redisProc, error) {
		return startRedisProc(ctx, n.bin, n.port, n.dir, n.persistence)
	}, n.port)
	if err != nil {
		return err
	}
	n.proc, n.ctl = proc, newControlClient(n.addr)
	n.epoch, n.epochLead = n.epoch+1, lead
	return nil
}

// wipeData removes whatever a persistence setting wrote, keeping the logs
// so that a later failure can still show what happened before.
func (n *redisNode) wipeData() error {
	entries, err := os.ReadDir(n.dir)
	if err != nil {
		return fmt.Errorf("wipe data: %w", err)
	}
	for _, e := range entries {
		if e.Name() == redisLogName || e.Name() == redisStdioName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(n.dir, e.Name())); err != nil {
			return fmt.Errorf("wipe data: %w", err)
		}
	}
	return nil
}

func (n *redisNode) FlushAll() error {
	c, err := n.control()
	if err != nil {
		return fmt.Errorf("node %d: flushall: %w", n.idx, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctlTimeout)
	defer cancel()
	if err := c.client.FlushAll(ctx).Err(); err != nil {
		return fmt.Errorf("node %d: flushall: %w", n.idx, err)
	}
	return nil
}

// controlConn is what the harness needs to send its own commands to the
// current process.
type controlConn struct {
	client    *redis.Client
	epoch     int
	epochLead time.Duration
}

// control returns the control connection of a running, unpaused node.
func (n *redisNode) control() (controlConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningLocked() {
		return controlConn{}, ErrNodeDown
	}
	if n.paused {
		return controlConn{}, ErrNodePaused
	}
	return controlConn{client: n.ctl, epoch: n.epoch, epochLead: n.epochLead}, nil
}

func (n *redisNode) runningLocked() bool {
	return n.proc != nil && n.proc.alive()
}

func (n *redisNode) Up() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.runningLocked()
}

func (n *redisNode) Emulated() []string {
	return []string{
		"node clock jump emulated by shifting every key's PTTL in db 0 with a Lua script (keys whose TTL would reach 0 are deleted)",
		"node clock rate emulated by shifting every key's PTTL in db 0 every " + shiftEvery.String() + " (at rate r, expiry is off by up to |r-1| x that, plus scheduling delays)",
		"TIME, EXPIREAT/PEXPIREAT and EXPIRETIME follow the host clock, not the node clock",
		"the applied shift is kept in key " + shiftMarkerKey + " of db " + strconv.Itoa(shiftMarkerDB),
	}
}

// close stops the node for good.
func (n *redisNode) close() error {
	n.mu.Lock()
	n.closed = true
	n.killLocked()
	n.reserved.Release()
	n.mu.Unlock()
	if n.stopLoop != nil {
		n.stopLoop()
		<-n.loopExited
	}
	return nil
}

// pid is the running server's process id, 0 while killed.
func (n *redisNode) pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return 0
	}
	return n.proc.cmd.Process.Pid
}
