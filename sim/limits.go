package sim

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The most a run may ask for (CheckValue applies them). Each is far above
// what a lock scenario needs and well below what exhausts a small machine;
// what a run costs as a whole
// (file descriptors, memory) is checked against this machine as well, by
// checkMachine.
const (
	// MaxClients: every client is a goroutine with a connection pool per
	// node (read and write buffers of tens of KB each), and with a proxy per
	// node when the network is faulted; the checker's search grows with
	// the clients that overlap. 100000 clients ran out of memory.
	MaxClients = 1000
	// MaxNodes: on redis every node is a redis-server process (several MB
	// and a port), started one after another; Redlock with more than a
	// few dozen masters says nothing a smaller quorum does not.
	MaxNodes = 32
	// maxKeys: each key is a partition of its own for the checker and a
	// lane in the timeline.
	maxKeys = 10000
	// maxReplicas: one replica per master is what failover needs.
	maxReplicas = 1
	// MaxFaults: each fault is watched by the scheduler, recorded, healed
	// at the end and drawn in the timeline.
	MaxFaults = 1000
	// maxDuration: the history is held in memory until the check; an hour
	// is longer than any scenario and still within memory for a few clients
	// (the memory estimate below refuses many clients for long).
	maxDuration = time.Hour
	// maxNameLen: a scenario's name is a directory of every run of it, and
	// part of file names beside its stamp and design; a file name has 255
	// bytes on Linux.
	maxNameLen = 100
)

// Cost estimates behind checkMachine. They are deliberately generous: a
// refused run costs a line, an out-of-memory crash costs the run.
const (
	// fdsPerLink: a client's pool to one node holds up to two connections
	// in practice (the cycle and the watchdog), two fds each on miniredis
	// (both ends are in this process).
	fdsPerLink = 4
	// fdsPerProxiedLink: a proxy's listener, plus the accepted and the
	// dialed end of each connection through it.
	fdsPerProxiedLink = 1 + 2*2
	// fdsReserve: control connections, the liveness probe, log files,
	// the report's files, the Go runtime.
	fdsReserve = 256
	// bytesPerLink: go-redis's buffers and pool for one client and node.
	bytesPerLink = 256 << 10
	// bytesPerOp: one history operation in memory and in the checker.
	bytesPerOp = 1 << 10
	// opsPerCycle: acquire, enter, exit, release, and a retry or two.
	opsPerCycle = 6
	// bytesPerClientLane: the timeline PNG is drawn in memory, a lane per
	// client (100000 clients asked for a 33 GB image).
	bytesPerClientLane = 512 << 10
	// memFallback is the budget when the machine's memory cannot be read.
	memFallback = 1 << 30
)

// checkMachine refuses a run this machine cannot hold: more file
// descriptors than RLIMIT_NOFILE allows (every dial would fail midway,
// which looks like a faulty node), more loopback ports than half the
// ephemeral range (every node and every proxy listens on one, and each
// connection's client end takes one more), or more memory than half of
// what is available. A zero limit is unknown and not checked.
func (c Config) checkMachine(fds, mem, ports uint64) error {
	servers := uint64(c.Cluster.Nodes * (1 + c.Cluster.Replicas))
	links := uint64(c.Clients) * servers
	proxied := uint64(min(c.Cluster.ProxiedClients, c.Clients)) * servers
	need := links*fdsPerLink + proxied*fdsPerProxiedLink + fdsReserve
	if c.Cluster.InMemory {
		// in-memory connections: no descriptor, no port.
		fds, ports = 0, 0
	}
	if fds > 0 && need > fds {
		return fmt.Errorf("clients %d x nodes %d: needs about %d file descriptors, the limit (ulimit -n) is %d",
			c.Clients, c.Cluster.Nodes, need, fds)
	}
	if p := servers + proxied + 2*links + 2*proxied; ports > 0 && p > ports/2 {
		return fmt.Errorf("clients %d x nodes %d: needs about %d loopback ports, more than half of the %d ephemeral ports",
			c.Clients, c.Cluster.Nodes, p, ports)
	}
	cycle := max(c.Hold+c.Think, time.Millisecond)
	ops := uint64(c.Clients) * uint64(c.Duration/cycle+1) * opsPerCycle
	bytes := links*bytesPerLink + ops*bytesPerOp + uint64(c.Clients)*bytesPerClientLane
	if bytes > mem {
		return fmt.Errorf("clients %d for duration %v: needs about %d MiB of memory, more than the %d MiB this run may use (half of what is available)",
			c.Clients, c.Duration, bytes>>20, mem>>20)
	}
	return nil
}

// What the machine offers is read once per process: Validate runs for
// every configuration a matrix or a fuzzer makes.
var (
	machineFDs   = sync.OnceValue(fdLimit)
	machineMem   = sync.OnceValue(memBudget)
	machinePorts = sync.OnceValue(ephemeralPorts)
)

// ephemeralPorts is the size of the kernel's ephemeral port range, 0 when
// unknown.
func ephemeralPorts() uint64 {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, err1 := strconv.ParseUint(f[0], 10, 64)
	hi, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || hi < lo {
		return 0
	}
	return hi - lo + 1
}

// fdLimit is RLIMIT_NOFILE's soft limit (which Go raises to the hard one
// at start), 0 when unknown.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}

// memBudget is half the memory available to this process: MemAvailable,
// or less under a cgroup limit.
func memBudget() uint64 {
	avail := uint64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					avail = kb << 10
				}
				break
			}
		}
		_ = f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (avail == 0 || limit < avail) {
			avail = limit
		}
	}
	if avail == 0 {
		return memFallback
	}
	return avail / 2
}
