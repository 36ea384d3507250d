package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// WaitVariant is one way a blocked acquire waits: poll at an interval
// (plus half of it as jitter, as every design's retry does) or notify.
type WaitVariant struct {
	Wait     lock.Wait
	Interval time.Duration // poll only
}

// String is the variant as --wait spells it: poll:50ms or notify.
func (v WaitVariant) String() string {
	if v.Wait == lock.WaitNotify {
		return "notify"
	}
	return "poll:" + v.Interval.String()
}

// DefaultWaitVariants are the comparison of waiting: the articles' 50 ms poll,
// the bench's 1 ms poll, and notification.
var DefaultWaitVariants = []WaitVariant{{lock.WaitPoll, 50 * time.Millisecond}, {lock.WaitPoll, time.Millisecond}, {Wait: lock.WaitNotify}}

// DefaultWaitClients are the hot-key client counts of the comparison.
var DefaultWaitClients = []int{4, 16, 64}

// ParseWaitVariant reads poll:<duration> or notify.
func ParseWaitVariant(s string) (WaitVariant, error) {
	s = strings.TrimSpace(s)
	if s == "notify" {
		return WaitVariant{Wait: lock.WaitNotify}, nil
	}
	d, ok := strings.CutPrefix(s, "poll:")
	if !ok {
		return WaitVariant{}, fmt.Errorf("%q: want poll:<interval> (e.g. poll:50ms) or notify", s)
	}
	iv, err := time.ParseDuration(d)
	if err != nil || iv <= 0 {
		return WaitVariant{}, fmt.Errorf("%q: the poll interval must be a positive duration such as 50ms", s)
	}
	return WaitVariant{lock.WaitPoll, iv}, nil
}

// WaitConfig is a hot-key comparison of ways to wait: every client of one
// design contends for one key, once per variant and client count.
type WaitConfig struct {
	Backend     sim.Backend
	Server      sim.Server // redis or valkey [redis]
	RedisServer string
	Algorithm   string // a design whose Info says Notify [setpx]
	Variants    []WaitVariant
	Clients     []int
	Duration    time.Duration // measured per variant and client count [2s]
	Rounds      int           // the variants of one client count run interleaved in this many rounds [2]
	Hold        time.Duration
	TTL         time.Duration // [a run's default, sim.Defaults]
	Seed        uint64
	Progress    func(done, total int)
}

// Resolve fills the unset fields and returns the comparison to run, or the
// first setting that cannot work.
func (c WaitConfig) Resolve() (WaitConfig, error) {
	c = c.withDefaults()
	return c, c.validate()
}

// withDefaults fills the unset fields.
func (c WaitConfig) withDefaults() WaitConfig {
	if c.Backend == "" {
		c.Backend = sim.BackendRedis
	}
	if c.Algorithm == "" {
		c.Algorithm = "setpx"
	}
	if len(c.Variants) == 0 {
		c.Variants = DefaultWaitVariants
	}
	if len(c.Clients) == 0 {
		c.Clients = DefaultWaitClients
	}
	if c.Duration == 0 {
		c.Duration = 2 * time.Second
	}
	if c.Rounds == 0 {
		c.Rounds = 2
	}
	if c.TTL == 0 {
		c.TTL = sim.Defaults().Options.TTL
	}
	return c
}

// validate names the first setting that cannot work.
func (c WaitConfig) validate() error {
	info, err := lock.Lookup(c.Algorithm)
	switch {
	case err != nil:
		return fmt.Errorf("%w: --algos: %w", ErrConfig, err)
	case !info.Notify:
		return fmt.Errorf("%w: --algos %s: cannot wait by notification (setpx, reentrant, fenced and rwlock-counted can)", ErrConfig, c.Algorithm)
	case c.Duration < 10*time.Millisecond*time.Duration(c.Rounds):
		return fmt.Errorf("%w: --duration %v: must be at least 10ms per round", ErrConfig, c.Duration)
	}
	return nil
}

// WaitResult is one variant at one client count.
type WaitResult struct {
	Wait    string `json:"wait"`
	Clients int    `json:"clients"`
	// Cycles are the acquire-hold-release cycles completed, CyclesPerS
	// over the measured time.
	Cycles     int64   `json:"cycles"`
	CyclesPerS float64 `json:"cycles_per_s"`
	// Acquire latency: from the start of a blocking acquire (first
	// attempt) to the lease in hand, waiting included.
	AcquireP50Ms float64 `json:"acquire_p50_ms"`
	AcquireP99Ms float64 `json:"acquire_p99_ms"`
	// CommandsPerLock is every command Redis ran (INFO commandstats,
	// commands inside scripts included) per completed cycle; -1 when the
	// backend does not count them (miniredis).
	CommandsPerLock float64 `json:"commands_per_lock"`
	// Fairness: the spread of completed cycles over the clients, as the
	// fewest and most any client got and the coefficient of variation
	// (standard deviation over mean; 0 is perfectly even).
	MinPerClient int64   `json:"min_per_client"`
	MaxPerClient int64   `json:"max_per_client"`
	FairnessCV   float64 `json:"fairness_cv"`
	Errors       int64   `json:"errors"`
	FirstError   string  `json:"first_error,omitempty"`
}

// WaitReport is a whole comparison.
type WaitReport struct {
	Machine   Machine      `json:"machine"`
	Backend   string       `json:"backend"`
	Algorithm string       `json:"algorithm"`
	Started   time.Time    `json:"started"`
	DurationS float64      `json:"duration_s"`
	HoldMs    float64      `json:"hold_ms"`
	TTLMs     float64      `json:"ttl_ms"`
	Command   string       `json:"command,omitempty"`
	Results   []WaitResult `json:"results"`
	WallS     float64      `json:"wall_s"`
}

// RunWait measures cfg on one node it starts and stops. The variants of one
// client count run interleaved, Duration/Rounds at a time, so that a noisy
// machine weighs on each alike.
func RunWait(ctx context.Context, cfg WaitConfig) (*WaitReport, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	rep := &WaitReport{Machine: ThisMachine(), Algorithm: cfg.Algorithm, Started: time.Now().UTC(),
		DurationS: cfg.Duration.Seconds(), HoldMs: ms(cfg.Hold), TTLMs: ms(cfg.TTL)}
	cluster, err := node.StartCluster(ctx, sim.ClusterConfig{Backend: cfg.Backend, Nodes: 1, Server: cfg.Server, RedisServer: cfg.RedisServer})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	defer cluster.Close()
	rep.Backend = backendText(ctx, cluster)
	admin := cluster.NewClient(0)
	defer admin.Close()

	total, done := len(cfg.Clients)*len(cfg.Variants)*cfg.Rounds, 0
	for ci, n := range cfg.Clients {
		tallies := make([]*waitTally, len(cfg.Variants))
		for i := range tallies {
			tallies[i] = newWaitTally(n)
		}
		for round := range cfg.Rounds {
			for k := range cfg.Variants {
				vi := (k + round + ci) % len(cfg.Variants) // rotate the order
				key := fmt.Sprintf("lockbench:wait:%d:%d:%d", ci, vi, round)
				if err := runWaitSegment(ctx, cluster, admin, cfg, cfg.Variants[vi], n, key, cfg.Duration/time.Duration(cfg.Rounds), tallies[vi]); err != nil {
					return nil, err
				}
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, total)
				}
			}
		}
		for vi, v := range cfg.Variants {
			rep.Results = append(rep.Results, tallies[vi].result(v.String(), n, cfg.Duration))
		}
	}
	rep.WallS = time.Since(rep.Started).Seconds()
	return rep, nil
}

// waitTally accumulates one variant's segments at one client count.
type waitTally struct {
	hist      *hdr.Histogram
	perClient []int64
	commands  int64 // -1: not counted
	errors    int64
	firstErr  string
}

func newWaitTally(clients int) *waitTally {
	return &waitTally{hist: newHist(), perClient: make([]int64, clients)}
}

func (t *waitTally) result(name string, clients int, d time.Duration) WaitResult {
	r := WaitResult{Wait: name, Clients: clients, Errors: t.errors, FirstError: t.firstErr, CommandsPerLock: -1}
	var sum float64
	r.MinPerClient = math.MaxInt64
	for _, c := range t.perClient {
		r.Cycles += c
		sum += float64(c)
		r.MinPerClient = min(r.MinPerClient, c)
		r.MaxPerClient = max(r.MaxPerClient, c)
	}
	r.CyclesPerS = float64(r.Cycles) / d.Seconds()
	if r.Cycles > 0 {
		mean := sum / float64(len(t.perClient))
		var v float64
		for _, c := range t.perClient {
			v += (float64(c) - mean) * (float64(c) - mean)
		}
		r.FairnessCV = math.Sqrt(v/float64(len(t.perClient))) / mean
		if t.commands >= 0 {
			r.CommandsPerLock = float64(t.commands) / float64(r.Cycles)
		}
	}
	p := percentiles(t.hist)
	r.AcquireP50Ms, r.AcquireP99Ms = p.P50/1000, p.P99/1000
	return r
}

// runWaitSegment runs n clients on key for d under variant v and adds to t.
func runWaitSegment(ctx context.Context, cluster *sim.Cluster, admin *redis.Client, cfg WaitConfig, v WaitVariant, n int, key string, d time.Duration, t *waitTally) error {
	retry := lock.RetryPolicy{Interval: v.Interval, Jitter: v.Interval / 2}
	type client struct {
		conn   *redis.Client
		locker lock.Locker
	}
	clients := make([]client, 0, n)
	defer func() {
		for _, c := range clients {
			_ = lock.Close(c.locker)
			_ = c.conn.Close()
		}
	}()
	for i := range n {
		conn := cluster.NewClient(0)
		l, err := lock.New(cfg.Algorithm, []redis.UniversalClient{conn}, lock.Options{
			TTL: cfg.TTL, Retry: retry, Wait: v.Wait, Seed: cfg.Seed*1_000_003 + uint64(i),
		})
		if err != nil {
			_ = conn.Close()
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		clients = append(clients, client{conn, l})
	}
	before, counted := commandCalls(ctx, admin)
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, c := range clients {
		rnd := rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))
		wg.Go(func() {
			var lat []time.Duration
			var cycles, errs int64
			var firstErr string
			fail := func(err error) {
				if errs == 0 {
					firstErr = err.Error()
				}
				errs++
			}
			for sctx.Err() == nil {
				t0 := time.Now()
				l, err := lock.WaitFor(sctx, c.locker, c.locker.Acquire, key, retry, lock.SystemClock{}, rnd)
				if err != nil {
					if dl, _ := sctx.Deadline(); time.Now().Before(dl) {
						fail(err)
						_ = lock.SystemClock{}.Sleep(sctx, time.Millisecond) // an erring node must not be hammered
					}
					continue
				}
				acquired := time.Since(t0)
				holdFor(cfg.Hold)
				// The release finishes even past the segment's end: a
				// lock left behind would only cost the next segment a TTL.
				if err := c.locker.Release(context.WithoutCancel(sctx), l); err != nil {
					fail(err)
					continue
				}
				if sctx.Err() == nil {
					lat = append(lat, acquired)
					cycles++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, x := range lat {
				record(t.hist, x)
			}
			t.perClient[i] += cycles
			t.errors += errs
			if t.firstErr == "" {
				t.firstErr = firstErr
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	after, ok := commandCalls(ctx, admin)
	switch {
	case !counted || !ok || t.commands < 0:
		t.commands = -1
	default:
		t.commands += after - before
	}
	return nil
}

// commandCalls sums calls over INFO commandstats, leaving out the admin
// connection's own INFO. false when the backend does not answer it.
func commandCalls(ctx context.Context, admin *redis.Client) (int64, bool) {
	info, err := admin.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, false
	}
	var sum int64
	found := false
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		for _, f := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(f, "calls="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err == nil {
					sum += n
					found = true
				}
			}
		}
	}
	return sum, found
}

// waitVariantsText lists variants as --wait takes them.
func waitVariantsText(vs []WaitVariant) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.String())
	}
	return strings.Join(s, ",")
}
