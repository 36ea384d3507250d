package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// Limit is what one server does at a number of clients with nothing
// between them and it but a pipelined loop: SET key token NX PX per
// second and EVALSHA of the compare-and-delete script per second, and the
// cycle limit these two make, 1/(1/SET + 1/EVALSHA): the most lock cycles
// (one of each) per second the server can serve. Every design's VsLimit
// is its throughput over CyclePerS at the same client count.
//
// It is measured before every cell at its client count, so that a moment
// of a loaded machine does not make it alone: each figure is the median
// of the Measurements, and CyclePerS the median of their cycle limits.
type Limit struct {
	Clients      int     `json:"clients"`
	SetPerS      float64 `json:"set_per_s"`
	EvalShaPerS  float64 `json:"evalsha_per_s"`
	CyclePerS    float64 `json:"cycle_limit_per_s"`
	Measurements int     `json:"measurements"`
}

// combineLimits is one Limit per client count, in the order counts were
// first measured, each the medians of its measurements.
func combineLimits(order []int, samples map[int][]Limit) []Limit {
	var out []Limit
	for _, n := range order {
		ls := samples[n]
		if len(ls) == 0 {
			continue
		}
		pick := func(f func(Limit) float64) float64 {
			v := make([]float64, len(ls))
			for i, l := range ls {
				v[i] = f(l)
			}
			return medianOf(v)
		}
		out = append(out, Limit{Clients: n, Measurements: len(ls),
			SetPerS:     pick(func(l Limit) float64 { return l.SetPerS }),
			EvalShaPerS: pick(func(l Limit) float64 { return l.EvalShaPerS }),
			CyclePerS:   pick(func(l Limit) float64 { return l.CyclePerS })})
	}
	return out
}

// medianOf is the median of v (the mean of the middle two for an even
// count); v is sorted in place.
func medianOf(v []float64) float64 {
	slices.Sort(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return m
}

// CycleLimit is the cycles per second a server doing set SETs and eval
// EVALSHAs per second can serve when each cycle is one of each:
// 1/(1/set + 1/eval); 0 when either is not positive.
func CycleLimit(set, eval float64) float64 {
	if set <= 0 || eval <= 0 {
		return 0
	}
	return 1 / (1/set + 1/eval)
}

// limitPipeline is how many commands a client of the limit loop sends per
// round trip: enough that the server, not the round trips, sets the pace.
const limitPipeline = 32

// limitTTL is the PX of the limit loop's keys: longer than the phase
// that deletes them, so that each compare-and-delete finds its key.
const limitTTL = 30 * time.Second

// limitSlice is how long each phase of the limit loop runs at most.
const limitSlice = 250 * time.Millisecond

// limitPhase is how long each phase of the limit loop runs in a sweep of
// cfg: a quarter of a round's slice, at most limitSlice; a pipelined loop
// sends tens of thousands of commands in that time.
func limitPhase(cfg Config) time.Duration {
	if cfg.Rounds <= 0 {
		return 0
	}
	return min(limitSlice, cfg.Duration/time.Duration(cfg.Rounds)/4)
}

// measureLimit measures the server limit once on node 0 (on a Redis
// Cluster, on the whole cluster through cluster clients, its keys spread
// over the slots) at n clients, every client with a connection of its own: first every client pipelines SET
// NX PX of keys of its own for the phase's time, then EVALSHA of the
// compare-and-delete script on those keys, in order, until the phase's
// time or its keys run out. Each rate is the commands over the phase's
// wall time.
func measureLimit(ctx context.Context, cluster *sim.Cluster, n int, slice time.Duration) (Limit, error) {
	conns := make([]redis.UniversalClient, n)
	for i := range conns {
		conns[i] = clientConns(cluster, 1)[0]
	}
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	if err := compareAndDelete.Load(ctx, conns[0]).Err(); err != nil {
		return Limit{}, fmt.Errorf("%w: limit: load script: %w", sim.ErrHarness, err)
	}
	tokens := make([]string, n)
	keys := make([][]string, n)
	for i := range tokens {
		tokens[i] = lock.RandomToken()
	}
	phase := func(do func(i int, deadline time.Time) (int, error)) (float64, error) {
		start := time.Now()
		deadline := start.Add(slice)
		counts := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { counts[i], errs[i] = do(i, deadline) })
		}
		wg.Wait()
		elapsed := time.Since(start).Seconds()
		total := 0
		for i := range n {
			if errs[i] != nil {
				return 0, errs[i]
			}
			total += counts[i]
		}
		if elapsed <= 0 {
			return 0, nil
		}
		return float64(total) / elapsed, nil
	}
	set, err := phase(func(i int, deadline time.Time) (int, error) {
		for j := 0; time.Now().Before(deadline) && ctx.Err() == nil; {
			pipe := conns[i].Pipeline()
			for range limitPipeline {
				k := fmt.Sprintf("lockbench:limit:%d:%d:%d", n, i, j)
				keys[i] = append(keys[i], k)
				pipe.SetNX(ctx, k, tokens[i], limitTTL)
				j++
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return 0, limitErr(ctx, "SET NX PX", err)
			}
		}
		return len(keys[i]), ctx.Err()
	})
	if err != nil {
		return Limit{}, err
	}
	eval, err := phase(func(i int, deadline time.Time) (int, error) {
		done := 0
		for done < len(keys[i]) && time.Now().Before(deadline) && ctx.Err() == nil {
			pipe := conns[i].Pipeline()
			end := min(done+limitPipeline, len(keys[i]))
			for _, k := range keys[i][done:end] {
				pipe.EvalSha(ctx, compareAndDelete.Hash(), []string{k}, tokens[i])
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return 0, limitErr(ctx, "EVALSHA", err)
			}
			done = end
		}
		return done, ctx.Err()
	})
	if err != nil {
		return Limit{}, err
	}
	// Keys the delete phase did not reach go now, not at their PX.
	// One DEL per key: on a Redis Cluster the keys are on many slots.
	for i, c := range conns {
		for len(keys[i]) > 0 {
			m := min(len(keys[i]), 1000)
			pipe := c.Pipeline()
			for _, k := range keys[i][:m] {
				pipe.Del(ctx, k)
			}
			_, _ = pipe.Exec(ctx)
			keys[i] = keys[i][m:]
		}
	}
	return Limit{Clients: n, SetPerS: set, EvalShaPerS: eval, CyclePerS: CycleLimit(set, eval), Measurements: 1}, nil
}

// addLimitFractions sets each result's VsLimit: its throughput over the
// cycle limit measured at its client count.
func addLimitFractions(rs []Result, limits []Limit) {
	for i := range rs {
		for _, l := range limits {
			if l.Clients == rs[i].Clients && l.CyclePerS > 0 {
				rs[i].VsLimit = rs[i].Throughput / l.CyclePerS
			}
		}
	}
}

// limitErr is the error of a pipeline of the limit loop: the context's
// when it ended or its deadline passed (go-redis sets the connection's
// deadline to the context's, whose own timer may fire a moment after the
// connection's), a harness failure otherwise.
func limitErr(ctx context.Context, what string, err error) error {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		<-ctx.Done()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: limit: %s: %w", sim.ErrHarness, what, err)
}
