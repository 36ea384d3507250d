// Package ports hands out loopback TCP ports that a run keeps for as long
// as it needs them, across the moments when nothing listens on them: a
// redis-server killed and restarted keeps its address, and so does a
// proxy that toxiproxy closes and opens again to lead it elsewhere.
//
// A port freed for such a moment can be lost two ways, and a reservation
// closes both:
//   - The kernel hands it out again: to a bind of port 0 (another run
//     picking a free port), or as the source port of an outgoing
//     connection, which blocks a listener on that port for as long as the
//     connection lives. Reserved ports lie outside the kernel's ephemeral
//     range (/proc/sys/net/ipv4/ip_local_port_range), which is where both
//     come from.
//   - Another locksim picks it the same way. A reservation holds a Unix
//     socket in the abstract namespace named after the port, which only
//     one socket on the host can hold at a time; the kernel drops it when
//     the process ends, however it ends, and it leaves no file behind.
//
// A program that binds a fixed port of its own can still take one; what
// restarts on a reserved port retries for a bounded time and then names
// the port it could not have.
package ports

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

const (
	// minPort keeps clear of the well-known and registered ports servers
	// are usually configured on.
	minPort = 10000
	maxPort = 65535
	// tries bounds the candidates Reserve draws before it gives up.
	tries = 2000
	// lockPrefix begins the abstract socket name that holds a port.
	lockPrefix = "@locksim-port-"
	// rangeFile is where Linux keeps its ephemeral port range.
	rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"
	// minSpace is the fewest ports outside the ephemeral range worth
	// keeping to; with fewer, any port from minPort up is drawn.
	minSpace = 1000
)

// Reservation is a port (and the ports at the offsets asked for) that no
// other Reserve, in this process or another, hands out until Release.
type Reservation struct {
	port  int
	ports []int
	locks []net.Listener // nil where the port is held in this process only

	once sync.Once
}

// Port is the reserved port.
func (r *Reservation) Port() int { return r.port }

// Addr is the reserved port on 127.0.0.1, as host:port.
func (r *Reservation) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// Release gives the ports back; later calls do nothing.
func (r *Reservation) Release() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		for i, l := range r.locks {
			if l != nil {
				_ = l.Close()
			} else {
				local.release(r.ports[i])
			}
		}
	})
}

// Reserve reserves a free loopback port p, and p+off for each offset given
// (a Redis Cluster node listens on its port+10000 too), all outside the
// kernel's ephemeral range when there is room, and free to bind when
// reserved.
func Reserve(offsets ...int) (*Reservation, error) {
	eLo, eHi := ephemeral()
	usable := func(q int) bool {
		return q >= minPort && q <= maxPort && (q < eLo || q > eHi)
	}
	if outside := max(0, eLo-minPort) + max(0, maxPort-eHi); outside < minSpace {
		usable = func(q int) bool { return q >= minPort && q <= maxPort }
	}
	top := maxPort
	for _, off := range offsets {
		top = min(top, maxPort-off)
	}
	if top < minPort {
		return nil, fmt.Errorf("reserve a port: offsets %v leave no room below %d", offsets, maxPort)
	}
	var last error
	for range tries {
		p := minPort + rand.IntN(top-minPort+1)
		cand := []int{p}
		ok := usable(p)
		for _, off := range offsets {
			cand = append(cand, p+off)
			ok = ok && usable(p+off)
		}
		if !ok {
			continue
		}
		r, err := reserveExactly(cand)
		if err == nil {
			return r, nil
		}
		last = err
	}
	return nil, fmt.Errorf("reserve a port: no free port in %d tries (last: %v)", tries, last)
}

// ReservePort reserves exactly port p, or says why it cannot.
func ReservePort(p int) (*Reservation, error) {
	if p < 1 || p > maxPort {
		return nil, fmt.Errorf("reserve port %d: not a port", p)
	}
	return reserveExactly([]int{p})
}

// errHeld says another reservation holds a port.
var errHeld = errors.New("reserved by another run")

func reserveExactly(ps []int) (*Reservation, error) {
	r := &Reservation{port: ps[0]}
	for _, q := range ps {
		f, err := lock(q)
		if err != nil {
			r.Release()
			return nil, fmt.Errorf("port %d: %w", q, err)
		}
		r.ports, r.locks = append(r.ports, q), append(r.locks, f)
		// Held by no run, it may still be bound by some other program.
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(q)))
		if err != nil {
			r.Release()
			return nil, fmt.Errorf("port %d: %w", q, err)
		}
		if err := l.Close(); err != nil {
			r.Release()
			return nil, fmt.Errorf("port %d: %w", q, err)
		}
	}
	return r, nil
}

// lock takes port q's lock: the abstract socket named after it, or,
// where there are no abstract sockets (not Linux), a lock within this
// process (a nil listener).
func lock(q int) (net.Listener, error) {
	l, err := net.Listen("unix", lockPrefix+strconv.Itoa(q))
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, errHeld
	case runtime.GOOS == "linux":
		return nil, fmt.Errorf("lock: %w", err)
	}
	if !local.take(q) {
		return nil, errHeld
	}
	return nil, nil
}

// ephemeral is the kernel's ephemeral port range; where it cannot be
// read, Linux's default.
func ephemeral() (lo, hi int) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile(rangeFile)
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	l, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l > h {
		return lo, hi
	}
	return l, h
}

// Ephemeral is the kernel's ephemeral port range, the ports a bind of
// port 0 or an outgoing connection may be given.
func Ephemeral() (lo, hi int) { return ephemeral() }

// localLocks are the ports reserved in this process without a lock file.
type localLocks struct {
	mu   sync.Mutex
	held map[int]bool
}

var local = &localLocks{held: map[int]bool{}}

func (l *localLocks) take(q int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[q] {
		return false
	}
	l.held[q] = true
	return true
}

func (l *localLocks) release(q int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, q)
}
