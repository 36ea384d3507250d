package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// MiniredisWarning is said whenever the backend is miniredis.
const MiniredisWarning = "miniredis runs Lua in an interpreter written in Go (thousands of scripts per second) " +
	"and shares this process's CPUs: its numbers show the harness working, not what the designs cost on Redis"

// ClusterNote is said whenever the backend is redis-cluster.
const ClusterNote = "backend redis-cluster: a cluster of --nodes masters without replicas; every bench client (raw's too) " +
	"has one go-redis ClusterClient, which sends each command to its key's master: per-client keys spread over the slots " +
	"and so over the masters, the hot key lives on one slot of one master. The server's limit is the whole cluster's, " +
	"measured through cluster clients with keys on every slot"

// Run measures cfg and returns the report. Errors wrap ErrConfig (bad
// input), sim.ErrHarness (nodes or clients could not be set up) or ctx's
// error. When ctx ends after some cells of a sweep finished, Run returns
// them with ctx's error, in a report marked Incomplete (the caller decides
// whether to write it); otherwise the report is nil. Whatever Run started
// is stopped before it returns.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	if len(cfg.Under) > 0 {
		return runUnder(ctx, cfg)
	}
	rep := &Report{Machine: ThisMachine(), Started: time.Now().UTC(), Settings: settingsOf(cfg)}
	rep.Notes = append(rep.Notes, unplanned(cfg)...)
	if cfg.Backend == sim.BackendMiniredis {
		rep.Notes = append(rep.Notes, "backend miniredis: "+MiniredisWarning)
	}
	if cfg.Backend == sim.BackendRedisCluster {
		rep.Notes = append(rep.Notes, ClusterNote)
	}
	cells := plan(cfg)
	nodes := 1
	for _, c := range cells {
		nodes = max(nodes, c.nodes)
	}
	// on redis-cluster, nodes is the cluster's masters, without replicas:
	// the bench measures the lock's commands, not failovers
	cluster, err := node.StartCluster(ctx, sim.ClusterConfig{
		Backend: cfg.Backend, Nodes: nodes, Server: cfg.Server, RedisServer: cfg.RedisServer, Dir: cfg.Dir,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	defer cluster.Close()
	rep.Backend = backendText(ctx, cluster)

	r := &runner{cfg: cfg, cluster: cluster}
	if err := r.preflight(cells); err != nil {
		return nil, err
	}
	for _, c := range cells {
		r.total += len(c.designs) * cfg.Rounds
	}
	var limitOrder []int
	limitSamples := map[int][]Limit{}
	for i, c := range cells {
		// The server's limit at the cell's client count is measured
		// before the cell, so that each count's limit is the median of
		// moments spread over the run.
		l, err := measureLimit(ctx, cluster, c.clients, limitPhase(cfg))
		var res []Result
		if err == nil {
			if len(limitSamples[c.clients]) == 0 {
				limitOrder = append(limitOrder, c.clients)
			}
			limitSamples[c.clients] = append(limitSamples[c.clients], l)
			rep.Limits = combineLimits(limitOrder, limitSamples)
			res, err = r.runCell(ctx, i, c)
		}
		if err != nil && (ctx.Err() == nil || i == 0) {
			return nil, err
		}
		if err != nil {
			rep.Incomplete = fmt.Sprintf("stopped after %d of %d cells: %v", i, len(cells), context.Cause(ctx))
			rep.Notes = append(rep.Notes, "incomplete: "+rep.Incomplete+"; the cells measured are whole, the rest are missing")
			rep.finish(cfg)
			return rep, err
		}
		rep.Results = append(rep.Results, res...)
	}
	if err := cluster.Close(); err != nil {
		rep.Notes = append(rep.Notes, err.Error())
	}
	rep.finish(cfg)
	return rep, nil
}

// finish orders the results and works out the ratios and comparisons.
func (rep *Report) finish(cfg Config) {
	sortResults(rep.Results, cfg.Algorithms)
	addRatios(rep.Results)
	addLimitFractions(rep.Results, rep.Limits)
	rep.Comparisons = comparisons(rep.Results)
	rep.WallS = time.Since(rep.Started).Seconds()
}

func settingsOf(cfg Config) Settings {
	retry := retryPolicy(cfg)
	return Settings{
		Algorithms: cfg.Algorithms, Clients: cfg.Clients, Nodes: cfg.Nodes, Contention: cfg.Contention,
		DurationS: cfg.Duration.Seconds(), Rounds: cfg.Rounds, WarmupS: cfg.Warmup.Seconds(),
		HoldMs: ms(cfg.Hold), TTLMs: ms(cfg.TTL), RetryMs: ms(retry.Interval), RetryJitterMs: ms(retry.Jitter),
		Seed: cfg.Seed,
	}
}

// retryPolicy is lock.Blocking's policy at the bench's interval, with the
// designs' default jitter (half the interval), without a limit on tries.
func retryPolicy(cfg Config) lock.RetryPolicy {
	return lock.RetryPolicy{Interval: cfg.RetryInterval, Jitter: cfg.RetryInterval / 2}
}

// clientConns are one client's connections at a cluster of n nodes: one
// per node, or on a Redis Cluster one cluster client of all its masters
// (straight to the nodes: the bench has no proxies).
func clientConns(c *sim.Cluster, n int) []redis.UniversalClient {
	if c.Config().Backend == sim.BackendRedisCluster {
		return c.NewClients()
	}
	conns := make([]redis.UniversalClient, n)
	for j := range conns {
		conns[j] = c.NewClient(j)
	}
	return conns
}

// backendText names the backend, with the server's program and version
// ("redis-server 7.0.15", "valkey-server 8.0.1") when it can be read.
func backendText(ctx context.Context, c *sim.Cluster) string {
	if !c.Config().Backend.RunsServer() {
		return string(c.Config().Backend)
	}
	text := c.Config().Server.Binary()
	if v := c.ServerVersion(ctx); v.Version != "" {
		text += " " + v.Version
	}
	if c.Config().Backend == sim.BackendRedisCluster {
		text += fmt.Sprintf(", %s of %d masters", sim.BackendRedisCluster, c.Config().Nodes)
	}
	return text
}

// RealServer reports whether a report's backend text names a server
// program (redis-server, valkey-server) rather than miniredis.
func RealServer(backend string) bool {
	for _, s := range node.Servers() {
		if strings.HasPrefix(backend, s.Binary()) {
			return true
		}
	}
	return false
}

// runner runs the cells of one sweep on one cluster.
type runner struct {
	cfg         Config
	cluster     *sim.Cluster
	done, total int
}

// runCell measures every design of c: a warm-up each, then Rounds rounds in
// which each design runs Duration/Rounds, the order rotated every round so
// that no design always follows the same one.
func (r *runner) runCell(ctx context.Context, idx int, c cell) ([]Result, error) {
	sets := make([][]worker, len(c.designs))
	defer func() {
		for _, ws := range sets {
			for _, w := range ws {
				w.close()
			}
		}
	}()
	for i, d := range c.designs {
		ws, err := r.workers(ctx, idx, c, d)
		if err != nil {
			return nil, err
		}
		sets[i] = ws
	}
	meters := make([]*meter, c.clients)
	for i := range meters {
		meters[i] = newMeter()
	}
	for _, ws := range sets {
		if err := runSegment(ctx, ws, meters, r.cfg.Warmup); err != nil {
			return nil, err
		}
		for _, m := range meters {
			m.reset()
		}
	}
	accs := make([]*accumulator, len(c.designs))
	for i := range accs {
		accs[i] = newAccumulator()
	}
	slice := r.cfg.Duration / time.Duration(r.cfg.Rounds)
	for round := range r.cfg.Rounds {
		for j := range c.designs {
			d := (j + round) % len(c.designs)
			before := readCost()
			if err := runSegment(ctx, sets[d], meters, slice); err != nil {
				return nil, err
			}
			accs[d].add(meters, slice, readCost().since(before))
			r.done++
			r.progress(Progress{Step: fmt.Sprintf("%s, %s, round %d/%d", c.designs[d], c, round+1, r.cfg.Rounds)})
		}
	}
	out := make([]Result, len(c.designs))
	for i, d := range c.designs {
		out[i] = accs[i].result(d, c)
		r.progress(Progress{Step: fmt.Sprintf("%s, %s", d, c), Result: &out[i]})
	}
	return out, nil
}

// preflight builds every design once, so that options a design refuses
// stop the run before the first measurement rather than in the middle.
func (r *runner) preflight(cells []cell) error {
	for _, c := range cells {
		for _, d := range c.designs {
			if d == Raw {
				continue
			}
			conns := clientConns(r.cluster, c.nodes)
			_, err := lock.New(d, conns, lock.Options{TTL: r.cfg.TTL, Retry: retryPolicy(r.cfg)})
			for _, cn := range conns {
				_ = cn.Close()
			}
			if err != nil {
				return fmt.Errorf("%w: %w", ErrConfig, err)
			}
		}
	}
	return nil
}

func (r *runner) progress(p Progress) {
	if r.cfg.Progress != nil {
		p.Done, p.Total = r.done, r.total
		r.cfg.Progress(p)
	}
}

// workers builds one client per c.clients for design d, each with its own
// connections, as separate processes would have. Keys carry the cell's
// index, so that nothing a cell leaves behind (a lock without TTL whose
// release failed) can block a later one.
func (r *runner) workers(ctx context.Context, idx int, c cell, d string) ([]worker, error) {
	retry := retryPolicy(r.cfg)
	key := func(i int) string {
		if c.contention == HotKey {
			return fmt.Sprintf("lockbench:%d:%s:hot", idx, d)
		}
		return fmt.Sprintf("lockbench:%d:%s:client%d", idx, d, i)
	}
	var ws []worker
	fail := func(err error) ([]worker, error) {
		for _, w := range ws {
			w.close()
		}
		return nil, err
	}
	for i := range c.clients {
		seed := r.cfg.Seed*1_000_003 + uint64(idx)*1024 + uint64(i)
		rnd := rand.New(rand.NewPCG(seed, 0x6c6f636b62656e63))
		if d == Raw {
			conns := clientConns(r.cluster, c.nodes)
			ws = append(ws, newRawWorker(conns, key(i), r.cfg.TTL, retry, r.cfg.Hold, rnd))
			if i == 0 {
				// EVALSHA needs the script on every node; loading it is
				// not part of the loop.
				for j, conn := range conns {
					if err := compareAndDelete.Load(ctx, conn).Err(); err != nil {
						return fail(fmt.Errorf("%w: raw: load script on node %d: %w", sim.ErrHarness, j, err))
					}
				}
			}
			continue
		}
		conns := clientConns(r.cluster, c.nodes)
		l, err := lock.New(d, conns, lock.Options{TTL: r.cfg.TTL, Retry: retry, Seed: seed})
		if err != nil {
			for _, cn := range conns {
				_ = cn.Close()
			}
			return fail(fmt.Errorf("%w: %w", ErrConfig, err))
		}
		ws = append(ws, &designWorker{locker: l, conns: conns, key: key(i), retry: retry, hold: r.cfg.Hold, rnd: rnd})
	}
	return ws, nil
}
