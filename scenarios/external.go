package scenarios

// Runs on the external backend (servers the user runs, --addrs) and
// through a remote toxiproxy (--toxiproxy): resolving, checking the
// addresses and clearing locksim's keys before a run.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
)

// RunConfig is Config(algo) as a run with o carries it out: on the
// external backend at o.Addrs when they are set, with the network's proxies
// on the toxiproxy server o.Toxiproxy when that is set. What the external
// backend cannot do comes back as a *Error naming it: a fault that needs
// process control (naming the fault), replicas or persistence, or a node
// count other than the number of addresses.
func (s *Scenario) RunConfig(algo string, o RunOptions) (sim.Config, error) {
	// What the backend cannot do (on --addrs: process control) is the
	// reason given first: it holds whatever the design.
	if err := s.BackendRefuses(algo, o); err != nil {
		return sim.Config{}, err
	}
	run, err := s.onAddrs(o.Addrs)
	if err != nil {
		return sim.Config{}, err
	}
	cfg, err := run.Config(algo)
	if err != nil {
		return sim.Config{}, err
	}
	if o.Toxiproxy != "" {
		if err := CheckAddr(o.Toxiproxy); err != nil {
			return sim.Config{}, fmt.Errorf("%w: toxiproxy: %w", sim.ErrConfig, err)
		}
		cfg.Cluster.Toxiproxy = o.Toxiproxy
	}
	if len(o.Addrs) == 0 {
		return cfg, nil
	}
	cfg.Cluster.Backend = sim.BackendExternal
	cfg.Cluster.Addrs = slices.Clone(o.Addrs)
	cfg.Cluster.Nodes = len(o.Addrs)
	// Config checked the faults against the scenario's own backend; the
	// external one refuses more.
	if _, err := s.validate(algo, cfg); err != nil {
		return sim.Config{}, err
	}
	return cfg, nil
}

// BackendRefuses is why the backend the run goes on cannot play the
// scenario for algo, nil when it can: the scenario's own backend (a
// command line's --backend set on s) refuses what s.check finds, and the
// external servers o.Addrs name refuse a node count other than theirs and
// a fault that needs process control (kill-node, node clocks, failover).
// It is the first reason a pair does not run, given before any the design
// brings (an expected skip, an option the design lacks): whatever the
// design, the backend cannot play it. Callers ask it before honouring an
// expected skip; RunConfig asks it first.
func (s *Scenario) BackendRefuses(algo string, o RunOptions) error {
	run, err := s.onAddrs(o.Addrs)
	if err != nil {
		return err
	}
	if len(o.Addrs) == 0 {
		return run.check()
	}
	return run.externalRefuses(algo, o.Addrs)
}

// externalRefuses is the external backend's refusal of the scenario's
// faults (one that needs process control, say), judged before the
// design's own checks.
func (s *Scenario) externalRefuses(algo string, addrs []string) error {
	if err := s.check(); err != nil {
		return err
	}
	cfg, err := s.build(algo)
	if err != nil {
		return err
	}
	cfg.Cluster.Backend = sim.BackendExternal
	cfg.Cluster.Addrs = slices.Clone(addrs)
	cfg.Cluster.Nodes = len(addrs)
	_, err = cfg.Resolve()
	return s.faultError(err)
}

// onAddrs is the scenario as it runs on len(addrs) external nodes: its own
// nodes when it sets them and they match, else one per address.
func (s *Scenario) onAddrs(addrs []string) (*Scenario, error) {
	if len(addrs) == 0 {
		return s, nil
	}
	if err := CheckAddrs(addrs); err != nil {
		return nil, fmt.Errorf("%w: external backend: %w", sim.ErrConfig, err)
	}
	if s.Nodes != nil && *s.Nodes != len(addrs) {
		return nil, s.errf("nodes", "the scenario has %s but the external backend was given %s (one per node)",
			count(*s.Nodes, "node", "nodes"), count(len(addrs), "address", "addresses"))
	}
	run := *s
	run.Nodes = ptr(len(addrs))
	return &run, nil
}

// count writes n with the noun's singular or plural.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// CheckAddr checks one host:port address: a host and a port number.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("address %q: want host:port", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q: port %q is not a number from 1 to 65535", addr, port)
	}
	return nil
}

// CheckAddrs checks the external backend's addresses: at least one, each
// host:port, none twice (two nodes on one server would let one server
// count twice towards a majority).
func CheckAddrs(addrs []string) error {
	if len(addrs) == 0 {
		return errors.New("no addresses (give the masters' host:port)")
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if err := CheckAddr(a); err != nil {
			return err
		}
		if seen[a] {
			return fmt.Errorf("address %q given twice: each node must be a server of its own", a)
		}
		seen[a] = true
	}
	return nil
}

// resolvedFor is the run's scenario.yaml: Resolved, and what the schema
// cannot say as comments in place. On external servers the backend line
// becomes a comment naming the backend and the addresses (a scenario file
// cannot name them, so the file does not claim a backend it did not run
// on); with a toxiproxy server a comment says where the proxies were.
func (s *Scenario) resolvedFor(algo string, o RunOptions) ([]byte, error) {
	run, err := s.onAddrs(o.Addrs)
	if err != nil {
		return nil, err
	}
	b, err := run.Resolved(algo)
	if err != nil || (len(o.Addrs) == 0 && o.Toxiproxy == "") {
		return b, err
	}
	var out bytes.Buffer
	found := false
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if found || !strings.HasPrefix(line, "backend:") {
			out.WriteString(line)
			continue
		}
		found = true
		if len(o.Addrs) > 0 {
			fmt.Fprintf(&out, "# backend: %s, the masters at %s (scenario files cannot name addresses: replay with locksim run --addrs)\n",
				sim.BackendExternal, strings.Join(o.Addrs, ","))
		} else {
			out.WriteString(line)
		}
		if o.Toxiproxy != "" {
			fmt.Fprintf(&out, "# network: the proxies were on the toxiproxy server at %s, not in locksim's process (locksim run --toxiproxy)\n", o.Toxiproxy)
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: scenario %s: resolved for %s without a backend line", sim.ErrHarness, s.Name, algo)
	}
	return out.Bytes(), nil
}

// prepare readies what o names outside this process before a run, and
// returns the notes the run's report carries about it and, on external
// servers, the run's lease on them: its key prefix and its guard, which
// end releases after the run.
func (o RunOptions) prepare(ctx context.Context) ([]string, *lease, error) {
	var notes []string
	var l *lease
	if len(o.Addrs) > 0 {
		var err error
		if l, err = takeLease(ctx, o.Addrs); err != nil {
			return nil, nil, err
		}
		notes = append(notes, fmt.Sprintf("%s backend: the masters at %s, not started by locksim; the run held the guard key %s on them, so no other locksim run used them at the same time",
			sim.BackendExternal, strings.Join(o.Addrs, ", "), GuardKey))
	}
	if o.Toxiproxy != "" {
		notes = append(notes, "network: the proxies (and every network fault) were on the toxiproxy server at "+o.Toxiproxy)
	}
	return notes, l, nil
}

// clearKeys deletes the keys under prefix on every server at addrs and
// returns how many it deleted. Nothing else on the servers is touched.
func clearKeys(ctx context.Context, addrs []string, prefix string) (int, error) {
	total := 0
	for i, addr := range addrs {
		n, err := clearKeysAt(ctx, addr, prefix)
		total += n
		if err != nil {
			return total, fmt.Errorf("external node %d at %s: delete keys %s*: %w", i, addr, prefix, err)
		}
	}
	return total, nil
}

func clearKeysAt(ctx context.Context, addr, prefix string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1, DialTimeout: 2 * time.Second, ContextTimeoutEnabled: true})
	defer c.Close()
	const batch = 500
	n := 0
	var keys []string
	del := func() error {
		if len(keys) == 0 {
			return nil
		}
		if err := c.Del(ctx, keys...).Err(); err != nil {
			return err
		}
		n += len(keys)
		keys = keys[:0]
		return nil
	}
	it := c.Scan(ctx, 0, prefix+"*", batch).Iterator()
	for it.Next(ctx) {
		if keys = append(keys, it.Val()); len(keys) == batch {
			if err := del(); err != nil {
				return n, err
			}
		}
	}
	if err := it.Err(); err != nil {
		return n, err
	}
	return n, del()
}
