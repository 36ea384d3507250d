package node

import (
	"errors"
	"fmt"
	"time"
)

// Backend names a kind of Redis node the harness can run.
type Backend string

const (
	// BackendMiniredis runs in-process miniredis servers: full control of
	// time, pauses and data loss, no external binary.
	BackendMiniredis Backend = "miniredis"
	// BackendRedis runs real redis-server processes on loopback ports.
	BackendRedis Backend = "redis"
)

// RunsServer reports whether the backend runs server processes of its own
// (redis-server or valkey-server, as ClusterConfig.Server says).
func (b Backend) RunsServer() bool { return b == BackendRedis || b == BackendRedisCluster }

// Persistence is a redis-server's AOF setting; it decides what survives a
// Kill followed by Restart(true).
type Persistence string

const (
	// PersistenceNone writes nothing to disk: a killed node comes back empty.
	PersistenceNone Persistence = "none"
	// PersistenceEverySec is AOF with appendfsync everysec: a kill loses up to
	// about a second of writes.
	PersistenceEverySec Persistence = "everysec"
	// PersistenceAlways is AOF with appendfsync always: every acknowledged
	// write survives a kill.
	PersistenceAlways Persistence = "always"
)

// Node is one Redis master the harness runs or reaches: what every
// backend can do. What only some backends can do is an optional capability
// a fault asks for with a type assertion (ClockController,
// ProcessController, Pauser, TimedPauser), the way io.Reader's users ask
// for io.WriterTo; a node without it refuses nothing at run time because
// it offers nothing. Every method is safe for concurrent use.
type Node interface {
	// Index is the node's position in its cluster.
	Index() int
	// Addr is the host:port clients dial; it stays the same across restarts.
	Addr() string
	Backend() Backend
	// FlushAll removes every key, as FLUSHALL would.
	FlushAll() error
	// Up reports whether the node's server is running (it may be paused).
	Up() bool
	// Emulated lists, for reports, what this backend only emulates.
	Emulated() []string
}

// ClockController is a node whose clock the harness moves: key expiry
// follows it.
type ClockController interface {
	Node
	// Clock is the node's own clock.
	Clock() time.Time
	// JumpClock moves the node clock forward by d: keys whose remaining TTL
	// is at most d expire at once, the others lose d. A negative d is refused.
	JumpClock(d time.Duration) error
	// SetClockRate makes the node clock run at r times true time from now on
	// (1 is normal, 2 expires keys twice as fast, 0 freezes expiry).
	SetClockRate(r float64) error
}

// Pauser is a node the harness can stop answering and resume.
type Pauser interface {
	Node
	// Pause makes the node answer nothing until Resume, like a SIGSTOPped
	// process: commands sent meanwhile run after Resume.
	Pause() error
	// Resume undoes Pause. Resuming a node that is not paused does nothing.
	Resume() error
}

// ProcessController is a node whose server the harness can crash and
// bring back.
type ProcessController interface {
	Node
	// Kill crashes the node: connections drop and nothing answers until
	// Restart. Killing a dead node does nothing.
	Kill() error
	// Restart brings a killed node back on the same address. With keepData
	// false it comes back empty; with keepData true it keeps what the backend
	// would keep after a crash (miniredis: everything; redis-server: what its
	// persistence setting wrote to disk).
	Restart(keepData bool) error
}

// Capable returns n as capability C, or an error naming what the node's
// backend cannot do.
func Capable[C any](n Node, what string) (C, error) {
	c, ok := n.(C)
	if !ok {
		return c, fmt.Errorf("node %d (%s) cannot %s", n.Index(), n.Backend(), what)
	}
	return c, nil
}

var (
	// ErrNodeDown is returned by operations that need a running node.
	ErrNodeDown = errors.New("node is down")
	// ErrNodeRunning is returned by Restart on a node that was not killed.
	ErrNodeRunning = errors.New("node is running: kill it before restarting")
	// ErrNodePaused is returned by operations that a paused node cannot serve.
	ErrNodePaused = errors.New("node is paused")
	// ErrClusterClosed is returned by Restart once the node's cluster closed.
	ErrClusterClosed = errors.New("cluster closed")
)
