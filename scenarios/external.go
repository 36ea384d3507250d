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
	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Servers are the servers a run uses that locksim does not start: the
// external backend and a toxiproxy server.
type Servers struct {
	// Addrs, when set, run the scenario on the external backend: the Redis
	// masters at these host:port addresses, in node order, in place of the
	// scenario's own backend. A scenario that sets nodes must set as many
	// as there are addresses; one that leaves nodes out gets one node per
	// address. What needs process control (kill-node, node clocks,
	// failover, replicas, persistence) is refused, naming it. A run's keys
	// are its own (under "locksim:<run id>:", so that an earlier run's, a
	// key a crash left without TTL or a fencing counter, cannot decide
	// it) and are deleted after it; while it runs it holds the guard key
	// GuardKey on every server, and a second run that finds it refuses to
	// start (ErrServersBusy).
	Addrs []string
	// Toxiproxy is the host:port of a toxiproxy server's API: the run's
	// proxies (and so its network faults) are made there instead of in
	// this process. Valid on every backend; the server must reach the
	// nodes' addresses.
	Toxiproxy string
}

// Plan is a scenario resolved for one design on the servers a run uses:
// everything a run of the pair takes, resolved once.
type Plan struct {
	// Algorithm is the design the plan runs.
	Algorithm string
	// Expect is what the scenario expects of the design; Expected says
	// whether it expects anything.
	Expect   Expectation
	Expected bool
	// Skipped is the reason an expected skip gives; Config and YAML are
	// then empty: the pair does not run.
	Skipped string
	// Config is the run's configuration; YAML its scenario.yaml (Resolved,
	// with what the schema cannot say about w as comments).
	Config sim.Config
	YAML   []byte
}

// Plan resolves the scenario for algo on w. What the backend cannot do
// comes before the design's skip (BackendRefuses); bad input comes back
// as a *Error or wraps sim.ErrConfig.
func (s *Scenario) Plan(algo string, w Servers) (Plan, error) {
	p := Plan{Algorithm: algo}
	p.Expect, p.Expected = s.Expect(algo)
	if p.Expected && p.Expect.Verdict == vocab.Skip {
		if err := s.BackendRefuses(algo, w); err != nil {
			return p, err
		}
		p.Skipped = p.Expect.Reason
		return p, nil
	}
	run, own, spec, err := s.runConfig(algo, w)
	if err != nil {
		return p, err
	}
	if p.Config, err = s.onServers(algo, own, w); err != nil {
		return p, err
	}
	if p.YAML, err = run.resolvedYAML(algo, spec, w); err != nil {
		return p, err
	}
	return p, nil
}

// WithSeed is p as Plan gives it for the same scenario with its seed
// set to seed: the configuration's seed and the seed line of its
// scenario.yaml, the only parts of a plan the seed reaches. A caller that
// runs one pair under many seeds (the matrix's repeats) resolves it once
// and takes each run's plan from it (TestPlanWithSeed compares the two on
// every catalogue pair). ok is false when p's YAML does not hold its
// seed on exactly one top-level line; p's caller then plans again.
func (p Plan) WithSeed(seed uint64) (Plan, bool) {
	if p.Skipped != "" {
		return p, true
	}
	old := []byte("\nseed: " + strconv.FormatUint(p.Config.Seed, 10) + "\n")
	i := bytes.Index(p.YAML, old)
	if i < 0 || bytes.Contains(p.YAML[i+len(old)-1:], old) {
		return Plan{}, false
	}
	repl := "\nseed: " + strconv.FormatUint(seed, 10) + "\n"
	y := make([]byte, 0, len(p.YAML)-len(old)+len(repl))
	y = append(y, p.YAML[:i]...)
	y = append(y, repl...)
	y = append(y, p.YAML[i+len(old):]...)
	p.YAML, p.Config.Seed = y, seed
	return p, true
}

// RunConfig is Config(algo) as a run on w carries it out: on the
// external backend at w.Addrs when they are set, with the network's proxies
// on the toxiproxy server w.Toxiproxy when that is set. What the external
// backend cannot do comes back as a *Error naming it: a fault that needs
// process control (naming the fault), replicas or persistence, or a node
// count other than the number of addresses.
func (s *Scenario) RunConfig(algo string, w Servers) (sim.Config, error) {
	_, own, _, err := s.runConfig(algo, w)
	if err != nil {
		return sim.Config{}, err
	}
	return s.onServers(algo, own, w)
}

// runConfig is the scenario as it runs on w's node count and its
// configuration for algo on its own backend, as given and resolved.
func (s *Scenario) runConfig(algo string, w Servers) (*Scenario, sim.Config, sim.Spec, error) {
	// What the backend cannot do (on --addrs: process control) is the
	// reason given first: it holds whatever the design.
	if err := s.BackendRefuses(algo, w); err != nil {
		return nil, sim.Config{}, sim.Spec{}, err
	}
	run, err := s.onAddrs(w.Addrs)
	if err != nil {
		return nil, sim.Config{}, sim.Spec{}, err
	}
	cfg, spec, err := run.resolve(algo)
	if err != nil {
		return nil, sim.Config{}, sim.Spec{}, err
	}
	return run, cfg, spec, nil
}

// onServers is cfg moved onto w's servers and checked there.
func (s *Scenario) onServers(algo string, cfg sim.Config, w Servers) (sim.Config, error) {
	if w.Toxiproxy != "" {
		if err := CheckAddr(w.Toxiproxy); err != nil {
			return sim.Config{}, fmt.Errorf("%w: toxiproxy: %w", sim.ErrConfig, err)
		}
		cfg.Cluster.Toxiproxy = w.Toxiproxy
	}
	if len(w.Addrs) == 0 {
		return cfg, nil
	}
	cfg.Cluster.Backend = sim.BackendExternal
	cfg.Cluster.Addrs = slices.Clone(w.Addrs)
	cfg.Cluster.Nodes = len(w.Addrs)
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
// external servers w.Addrs name refuse a node count other than theirs and
// a fault that needs process control (kill-node, node clocks, failover).
// It is the first reason a pair does not run, given before any the design
// brings (an expected skip, an option the design lacks): whatever the
// design, the backend cannot play it. Callers ask it before honouring an
// expected skip; RunConfig asks it first.
func (s *Scenario) BackendRefuses(algo string, w Servers) error {
	run, err := s.onAddrs(w.Addrs)
	if err != nil {
		return err
	}
	if len(w.Addrs) == 0 {
		return run.check()
	}
	return run.externalRefuses(algo, w.Addrs)
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

// comment writes into doc, a resolved scenario, what the schema cannot
// say about w, in place: on external servers the backend field becomes a
// comment naming the backend and the addresses (a scenario file cannot
// name them, so the file does not claim a backend it did not run on);
// with a toxiproxy server a comment says where the proxies were.
func (w Servers) comment(doc *yaml.Node) error {
	if len(w.Addrs) == 0 && w.Toxiproxy == "" {
		return nil
	}
	m := doc
	if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	at := -1
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "backend" {
			at = i
			break
		}
	}
	if m.Kind != yaml.MappingNode || at < 0 {
		return errors.New("no backend field")
	}
	var lines []string
	if len(w.Addrs) > 0 {
		lines = append(lines, fmt.Sprintf("# backend: %s, the masters at %s (scenario files cannot name addresses: replay with locksim run --addrs)",
			sim.BackendExternal, strings.Join(w.Addrs, ",")))
	}
	if w.Toxiproxy != "" {
		lines = append(lines, fmt.Sprintf("# network: the proxies were on the toxiproxy server at %s, not in locksim's process (locksim run --toxiproxy)", w.Toxiproxy))
	}
	if len(w.Addrs) > 0 {
		m.Content = slices.Delete(m.Content, at, at+2)
	} else {
		at += 2
	}
	if at >= len(m.Content) {
		m.FootComment = strings.Join(lines, "\n")
		return nil
	}
	if h := m.Content[at].HeadComment; h != "" {
		lines = append(lines, h)
	}
	m.Content[at].HeadComment = strings.Join(lines, "\n")
	return nil
}

// Prepare readies what w names outside this process before a run. It
// returns the notes the run's report carries about it, the prefix of the
// run's keys ("" when the run is not on external servers), and end, which
// releases the run's lease on the external servers after the run (its
// guard, its keys) and returns the notes about that.
func (w Servers) Prepare(ctx context.Context) (notes []string, prefix string, end func(context.Context) ([]string, error), err error) {
	notes, l, err := w.prepare(ctx)
	end = func(context.Context) ([]string, error) { return nil, nil }
	if err != nil || l == nil {
		return notes, "", end, err
	}
	return notes, l.prefix, l.end, nil
}

// prepare readies what o names outside this process before a run, and
// returns the notes the run's report carries about it and, on external
// servers, the run's lease on them: its key prefix and its guard, which
// end releases after the run.
func (o Servers) prepare(ctx context.Context) ([]string, *lease, error) {
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
	// The run's keys, and those named after them with a hash tag (the
	// fenced design's counter, "{<key>}:fence").
	for _, pattern := range []string{prefix + "*", "{" + prefix + "*"} {
		it := c.Scan(ctx, 0, pattern, batch).Iterator()
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
	}
	return n, del()
}
