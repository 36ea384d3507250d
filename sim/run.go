package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim/network"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/recorder"
	"github.com/locksim/locksim/vtime"
)

// Result is what a run produced: the history and what a reader needs to
// trust it.
type Result struct {
	Config  Config
	History History
	// Notes: what was emulated, triggers that never fired, faults that failed.
	Notes []string
	// Unfired are the faults (1-based, as in the history) that never acted:
	// their trigger never came, their until came first, or their start
	// failed.
	Unfired []int
	// Incomplete: the run was interrupted; its history must not be presented
	// as a verdict.
	Incomplete bool
	Started    time.Time
	Wall       time.Duration
	// Server is the server the redis backend ran, as its first node's
	// INFO gave it at the start (ServerVersion); zero on the others.
	Server node.ServerVersion
}

// ErrConfig marks bad input, as opposed to a harness failure.
var ErrConfig = errors.New("bad configuration")

// Run plays one configuration: it starts the cluster, runs the clients while
// the faults play, heals, probes liveness and stops everything it started.
// A cancelled ctx (Ctrl-C) stops the run early and marks it Incomplete.
//
// With VirtualTime the run goes in a virtual-time bubble of the
// vtime.Host ctx carries: the same run, with every wait costing no real
// time. Result.Wall is then real time; the history's times are virtual.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	cfg := spec.cfg
	if !cfg.VirtualTime {
		return run(ctx, cfg, time.Now())
	}
	host := vtime.FromContext(ctx)
	if !host.Valid() {
		return nil, fmt.Errorf("%w: virtual time: %w", ErrConfig, vtime.ErrNoHost)
	}
	started := time.Now()
	var res *Result
	var err error
	bubbleErr := host.Run(ctx, cfg.Algorithm, func(ctx context.Context) {
		// Everything that lets the run progress at one virtual instant
		// goes through the scheduler, in an order drawn from the seed: the
		// same seed replays the same history.
		s := vtime.StartScheduler(cfg.Seed)
		defer s.Stop()
		res, err = run(vtime.WithScheduler(ctx, s), cfg, started)
	})
	if bubbleErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrHarness, bubbleErr)
	}
	if res != nil {
		res.Wall = time.Since(started)
		if ctx.Err() != nil && !res.Incomplete {
			// Cancelled after the bubble's last look at ctx: the run is
			// whole, but the caller asked to stop.
			res.Incomplete = true
			err = fmt.Errorf("run interrupted: %w", ctx.Err())
		}
	}
	return res, err
}

// run is Run in the current time, real or the bubble's; started is the
// real time at which Run was called.
func run(ctx context.Context, cfg Config, started time.Time) (*Result, error) {
	res := &Result{Config: cfg, Started: started}
	cluster, err := node.StartCluster(ctx, cfg.Cluster)
	if errors.Is(err, node.ErrNoRedisServer) {
		return nil, fmt.Errorf("%w: backend %s: %w", ErrConfig, cfg.Cluster.Backend, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: start %s nodes: %w", ErrHarness, cfg.Cluster.Backend, err)
	}
	res.Notes = append(res.Notes, cfg.warnings()...)
	defer cluster.Close()
	res.Server = cluster.ServerVersion(ctx)
	for _, n := range cluster.Nodes() {
		res.Notes = appendNew(res.Notes, n.Emulated()...)
	}

	seen := int(min(opsSeen.Load(), maxOpsRoom))
	rec := recorder.NewSized(seen + seen/4)
	w := &World{cfg: cfg, rec: rec, cluster: cluster, res: newResource(rec), sched: vtime.SchedulerFrom(ctx)}
	sched := newSchedule(w, cfg.Faults)
	cluster.Redirected(func(client int, event, detail string) {
		at := rec.Now()
		rec.Add(Op{Kind: KindRedirect, Client: client, Call: at, Return: at, Outcome: OK, Event: event, Detail: detail})
	})
	for i := 0; i < cfg.Clients; i++ {
		c, err := newClient(i, w, sched)
		if err != nil {
			closeClients(w.clients)
			if errors.Is(err, lock.ErrNoStart) {
				return nil, fmt.Errorf("%w: client %d: %w", ErrHarness, i, err)
			}
			return nil, fmt.Errorf("%w: client %d: %w", ErrConfig, i, err)
		}
		w.clients = append(w.clients, c)
	}
	defer closeClients(w.clients)
	obs := newObservers(w) // what the nodes hold, read until after the probe
	defer obs.Stop()
	// True time starts once every client is ready.
	rec.Restart()
	for _, c := range w.clients {
		c.Clock.rebase(rec.Origin(), time.Now())
	}
	obs.Start()

	// Clients get the duration plus a grace period to finish their cycle;
	// past that they are cut off (a hung node cannot hang the harness).
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration+cfg.Grace)
	defer cancel()
	// stop ends when the run's duration is over.
	stop, closeStop := context.WithCancel(context.WithoutCancel(ctx))
	defer closeStop()
	var wg sync.WaitGroup
	sched.arm()
	for i, c := range w.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Client i starts i x StartStagger into the run, so that
			// "client 0 asks first" is a rule on both backends, not the
			// goroutine scheduler's choice among clients that all start
			// at the same virtual instant.
			if c.sleep(runCtx, time.Duration(i)*StartStagger) != nil {
				return
			}
			c.run(runCtx, stop)
		}()
	}
	_ = newSleeper(w.sched, "run").sleep(ctx, cfg.Duration) // or until ctx ends
	closeStop()
	healErr := sched.healAll()
	wg.Wait()
	for _, c := range w.clients {
		c.abandon()
	}
	if healErr != nil {
		res.Notes = append(res.Notes, healErr.Error())
	}
	notes, unfired := sched.unfired()
	res.Notes, res.Unfired = append(res.Notes, notes...), unfired
	if ctx.Err() == nil && !cfg.NoProbe {
		probe(ctx, w)
	}
	obs.Stop()
	recordSentinels(rec, cluster.SentinelEvents())
	res.History = rec.History()
	opsSeen.Store(int64(len(res.History.Ops)))
	res.Notes = append(res.Notes, crossSlotNotes(cfg.Algorithm, res.History)...)
	res.Wall = time.Since(started) // the bubble's when virtual; Run corrects it
	if ctx.Err() != nil {
		res.Incomplete = true
		return res, fmt.Errorf("run interrupted: %w", ctx.Err())
	}
	return res, nil
}

// closeClients closes the clients together: a process design's child is
// given a grace period to exit when closed (package adapter), and the
// clients' grace periods then run at once, not one after another.
func closeClients(cs []*Client) {
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(c.close)
	}
	wg.Wait()
}

func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		seen := false
		for _, d := range dst {
			seen = seen || d == x
		}
		if !seen {
			dst = append(dst, x)
		}
	}
	return dst
}

// recordSentinels adds what the sentinels announced during the run to the
// history (what they said while the cluster started is not the run's).
func recordSentinels(rec *recorder.Recorder, evs []node.SentinelEvent) {
	for _, ev := range evs {
		if ev.At.Before(rec.Origin()) {
			continue
		}
		at := ev.At.Sub(rec.Origin())
		rec.Add(Op{Kind: KindSentinel, Client: NoClient, Call: at, Return: at, Outcome: OK,
			Event: ev.Event, Detail: ev.Detail, Source: network.SentinelEnd(ev.Sentinel).String()})
	}
}

// opsSeen is how many operations the latest run recorded: the next run's
// recorder starts with room for a quarter more, as runs one after another
// (an exploration's, a matrix's) record about as many. It sizes an array,
// nothing else. The room is bounded by maxOpsRoom, so that one long run
// does not make every later one reserve its size.
var opsSeen atomic.Int64

// maxOpsRoom bounds the operations a run's recorder makes room for at its
// start (about 6 MB).
const maxOpsRoom = 1 << 14
