package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// backendFlags say where a run's nodes and proxies are: --backend,
// --server (the program the redis backend starts), --addrs (the external
// backend's masters) and --toxiproxy (a toxiproxy server holding the
// proxies). run and matrix share them.
type backendFlags struct {
	backend   string
	server    string
	addrs     []string
	toxiproxy string
	realTime  bool
}

func (b *backendFlags) register(fl *pflag.FlagSet, defaultBackend string) {
	fl.StringVar(&b.backend, "backend", "", "miniredis, redis or external (default: "+defaultBackend+"; external needs --addrs)")
	registerServer(fl, &b.server)
	fl.StringSliceVar(&b.addrs, "addrs", nil, "run on Redis servers you run: their masters' `host:port,...`, one per node (implies --backend external)")
	// The same flag, with the same meaning, as doctor's.
	fl.StringVar(&b.toxiproxy, "toxiproxy", "", "put the network's proxies on the toxiproxy server whose API is at `ADDR` (host:port), not in this process")
	fl.BoolVar(&b.realTime, "real-time", false, "run miniredis on the wall clock (default there: virtual time, where waits cost nothing)")
}

// external reports whether the run goes to the user's servers.
func (b *backendFlags) external() bool { return len(b.addrs) > 0 }

// check validates the flags without touching the network; every error is
// one line naming the flag and the value.
func (b *backendFlags) check(changed func(string) bool) error {
	for i, a := range b.addrs {
		b.addrs[i] = strings.TrimSpace(a) // "--addrs 'a:1, b:2'"
	}
	if changed("backend") {
		switch sim.Backend(b.backend) {
		case sim.BackendMiniredis, sim.BackendRedis, sim.BackendRedisCluster:
			if b.external() {
				return fmt.Errorf("--addrs is for --backend external, not --backend %s", b.backend)
			}
		case sim.BackendExternal:
			if !b.external() {
				return errors.New("--backend external needs --addrs host:port,... (the masters of the servers you run, one per node)")
			}
		default:
			return fmt.Errorf("--backend %q: want miniredis, redis, redis-cluster or external", b.backend)
		}
	}
	if err := checkServer(b.server, b.backend, changed("backend"), b.external()); err != nil {
		return err
	}
	if changed("addrs") {
		if err := scenarios.CheckAddrs(b.addrs); err != nil {
			return fmt.Errorf("--addrs: %w", err)
		}
	}
	if changed("toxiproxy") {
		if err := scenarios.CheckAddr(b.toxiproxy); err != nil {
			return fmt.Errorf("--toxiproxy: %w", err)
		}
	}
	return nil
}

// preflightTimeout bounds each server's answer in preflight.
const preflightTimeout = 3 * time.Second

// preflight makes sure that the servers the flags name answer before
// anything runs, so that a wrong address is one line now rather than a
// harness failure in every run, and that no server is given twice under
// two spellings (127.0.0.1:p, localhost:p, [::ffff:127.0.0.1]:p): the
// resolved addresses differ, and so do the servers' run_id where INFO
// gives one, else one server would count twice towards a majority.
func (b *backendFlags) preflight(ctx context.Context) error {
	seen := map[string]int{}
	for i, addr := range b.addrs {
		ids, err := ping(ctx, addr)
		if err != nil {
			return fmt.Errorf("--addrs: node %d at %s does not answer PING: %w", i, addr, err)
		}
		for _, id := range ids {
			if j, ok := seen[id]; ok {
				return fmt.Errorf("--addrs: node %d at %s and node %d at %s are the same server (%s): each node must be a server of its own",
					j, b.addrs[j], i, addr, id)
			}
			seen[id] = i
		}
	}
	if b.toxiproxy != "" {
		c := toxiproxyReachable(ctx, b.toxiproxy) // doctor's check
		// Its keep-alive connection would otherwise outlive the command.
		http.DefaultClient.CloseIdleConnections()
		if !c.ok {
			return fmt.Errorf("--toxiproxy: %s", c.detail)
		}
	}
	return nil
}

// ping checks that the server at addr answers PING and returns what
// identifies it: the address it resolved to ("address 127.0.0.1:6379")
// and, where INFO server gives it, its run_id ("run_id ...").
func ping(ctx context.Context, addr string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	// A plain dial first: go-redis answers a refused dial by retrying in
	// a goroutine of its own that outlives the client by up to a second.
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	var ids []string
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		ip := ta.IP
		if ip4 := ip.To4(); ip4 != nil {
			ip = ip4 // ::ffff:a.b.c.d is a.b.c.d
		}
		ids = append(ids, "address "+net.JoinHostPort(ip.String(), strconv.Itoa(ta.Port)))
	}
	_ = conn.Close()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1, DialTimeout: preflightTimeout, ContextTimeoutEnabled: true})
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		return nil, err
	}
	if info, err := c.Info(ctx, "server").Result(); err == nil {
		for _, line := range strings.Split(info, "\n") {
			if id, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok && id != "" {
				ids = append(ids, "run_id "+id)
			}
		}
	}
	return ids, nil
}

// runOptions are the run.Options the flags give.
func (b *backendFlags) runOptions() run.Options {
	return run.Options{Servers: scenarios.Servers{Addrs: b.addrs, Toxiproxy: b.toxiproxy}, RealTime: b.realTime}
}

// where says in one line where the runs go, for stderr.
func (b *backendFlags) where() string {
	var parts []string
	if b.external() {
		parts = append(parts, fmt.Sprintf("backend external: %d masters at %s", len(b.addrs), strings.Join(b.addrs, ", ")))
	}
	if b.server != "" && sim.Server(b.server) != sim.ServerRedis {
		parts = append(parts, "server processes: "+sim.Server(b.server).Binary())
	}
	if b.toxiproxy != "" {
		parts = append(parts, "proxies on the toxiproxy server at "+b.toxiproxy)
	}
	return strings.Join(parts, "; ")
}
