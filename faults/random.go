package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Random is a seeded nemesis: while in force, it repeats a round of one
// fault of a kind drawn from Kinds, with targets and sizes drawn too (scaled
// to the lock TTL), for Interval, then Interval of calm. Healing it is the
// final heal: the fault in force is healed and no other starts; the run's
// liveness probe then checks the recovery. Each fault it plays is recorded
// in the history like a scheduled one. The same seed draws the same faults
// (what they hit still depends on timing).
type Random struct {
	Seed     uint64        // 0: the run's seed
	Interval time.Duration // 0: the lock TTL
	// Kinds to mix; empty: every kind the backend supports but crash-client
	// (forever) and failover (needs replicas; listed when there are).
	Kinds []vocab.Kind
}

func (f Random) String() string {
	s := "random ("
	if f.Seed != 0 {
		s += "seed " + strconv.FormatUint(f.Seed, 10) + ", "
	}
	if f.Interval > 0 {
		s += "every " + f.Interval.String() + ", "
	}
	if len(f.Kinds) == 0 {
		return s + "default kinds)"
	}
	return s + strings.Join(vocab.KindStrings(f.Kinds), ", ") + ")"
}

// resolved fills in the defaults from the run's configuration.
func (f Random) resolved(cfg sim.Config) Random {
	if f.Seed == 0 {
		f.Seed = cfg.Seed
	}
	if f.Interval == 0 {
		f.Interval = cfg.Options.TTL
	}
	if len(f.Kinds) == 0 {
		f.Kinds = []vocab.Kind{vocab.KindPauseClient, vocab.KindClockSkewClient, vocab.KindClockJumpClient, vocab.KindDelay, vocab.KindPartition, vocab.KindDrop, vocab.KindPauseNode}
		if cfg.Cluster.Backend != sim.BackendExternal {
			f.Kinds = append(f.Kinds, vocab.KindClockJumpNode, vocab.KindClockRateNode, vocab.KindKillNode)
			if cfg.Cluster.Replicas > 0 {
				f.Kinds = append(f.Kinds, vocab.KindFailover)
			}
		}
	}
	return f
}

func (f Random) Validate(cfg sim.Config) error {
	if f.Interval < 0 {
		return fmt.Errorf("interval %v: must not be negative", f.Interval)
	}
	r := f.resolved(cfg)
	if r.Interval < time.Millisecond {
		return fmt.Errorf("interval %v: at least 1ms", r.Interval)
	}
	rnd := rand.New(rand.NewPCG(r.Seed, 1))
	for _, k := range r.Kinds {
		if !slices.Contains(DrawableKinds(), k) {
			return fmt.Errorf("kind %q: random mixes %s", k, strings.Join(vocab.KindStrings(DrawableKinds()), ", "))
		}
		// A sample of the kind says whether the backend supports it.
		if err := r.draw(k, cfg, rnd).(sim.Validator).Validate(cfg); err != nil {
			return fmt.Errorf("kind %s: %w", k, err)
		}
	}
	return nil
}

func (f Random) UsesNetwork(cfg sim.Config) bool {
	r := f.resolved(cfg)
	for _, k := range r.Kinds {
		// A link fault acts through the network; on redis a failover
		// redirects the clients' proxies.
		a := k.Attrs()
		if a.Hits == vocab.HitsLink || (a.Promotes && cfg.Cluster.Backend == sim.BackendRedis) {
			return true
		}
	}
	return false
}

// randomRun is one Random in force.
type randomRun struct {
	stop chan struct{}
	done chan struct{}
}

func (f Random) Start(w *sim.World) error {
	cfg := w.Config()
	r := f.resolved(cfg)
	run := &randomRun{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(run.done)
		r.play(w, run.stop)
	}()
	w.Stash(f.String(), run)
	return nil
}

func (f Random) Stop(w *sim.World) error {
	v, ok := w.Unstash(f.String())
	if !ok {
		return errors.New("not started")
	}
	run := v.(*randomRun)
	close(run.stop)
	<-run.done
	return nil
}

// play runs rounds until stop closes, healing the fault in force then.
func (f Random) play(w *sim.World, stop <-chan struct{}) {
	cfg := w.Config()
	rnd := rand.New(rand.NewPCG(f.Seed, 0x6e656d65736973)) // "nemesis"
	for round := 1; ; round++ {
		kind := f.Kinds[rnd.IntN(len(f.Kinds))]
		sub := f.draw(kind, cfg, rnd)
		desc := fmt.Sprintf("random #%d: %s", round, sub)
		start := w.Now()
		err := sub.(sim.Validator).Validate(cfg)
		if err == nil {
			err = sub.Start(w)
		}
		if err != nil {
			w.RecordFault(desc, start, err, nil)
		}
		stopped := w.Wait(stop, desc, f.Interval)
		if err == nil {
			w.RecordFault(desc, start, nil, sub.Stop(w))
		}
		if stopped || w.Wait(stop, desc+" pause", f.Interval) {
			return
		}
	}
}

// draw makes one fault of kind with random targets and sizes, as the
// kind's entry draws them: clock moves and node downtimes of half to three
// TTLs (both sides of the lease), delays of a tenth of a TTL to a TTL.
func (f Random) draw(kind vocab.Kind, cfg sim.Config, rnd *rand.Rand) sim.Fault {
	d := Draw{Rnd: rnd, TTL: cfg.Options.TTL, Config: cfg, Interval: f.Interval}
	d.Client = rnd.IntN(cfg.Clients)
	d.Node = rnd.IntN(cfg.Cluster.Nodes)
	d.Between = func(lo, hi time.Duration) time.Duration {
		lo, hi = lo.Round(time.Millisecond), hi.Round(time.Millisecond)
		if hi <= lo {
			return max(lo, time.Millisecond)
		}
		return max(lo+time.Duration(rnd.Int64N(int64(hi-lo)/int64(time.Millisecond)+1))*time.Millisecond, time.Millisecond)
	}
	d.Signed = func(x time.Duration) time.Duration {
		if rnd.IntN(2) == 0 {
			return -x
		}
		return x
	}
	if e, ok := Lookup(kind); ok && e.Random != nil {
		return e.Random(d)
	}
	panic("faults: random cannot draw kind " + string(kind)) // Validate refuses unknown kinds
}

// randomSplit puts every client and node on one of two sides; if that cuts
// nothing (all on one side), it isolates one client instead.
func randomSplit(cfg sim.Config, rnd *rand.Rand) Links {
	var sides [2][]string
	for c := 0; c < cfg.Clients; c++ {
		s := rnd.IntN(2)
		sides[s] = append(sides[s], "c"+strconv.Itoa(c))
	}
	for n := 0; n < cfg.Cluster.Nodes; n++ {
		s := rnd.IntN(2)
		sides[s] = append(sides[s], "n"+strconv.Itoa(n))
	}
	cuts := func(a, b []string) bool {
		has := func(side []string, prefix string) bool {
			return slices.ContainsFunc(side, func(x string) bool { return strings.HasPrefix(x, prefix) })
		}
		return has(a, "c") && has(b, "n") || has(a, "n") && has(b, "c")
	}
	if !cuts(sides[0], sides[1]) {
		c := rnd.IntN(cfg.Clients)
		return Links{Groups: [][]string{{"c" + strconv.Itoa(c)}, {"nodes"}}}
	}
	return Links{Groups: [][]string{sides[0], sides[1]}}
}

var (
	_ sim.Fault       = Random{}
	_ sim.Validator   = Random{}
	_ sim.NetworkUser = Random{}
)

func init() {
	register(Entry{
		Kind:     vocab.KindRandom,
		Example:  "for: 1s",
		Optional: []string{"kinds", "interval", "seed", "for", "until"},
		Note:     "random draws its targets itself (seeded by the scenario's seed)",
		// Unset, the seed is the run's, the interval the lock TTL and the
		// mix the backend's default kinds; Validate checks the kinds
		// against what the backend can do.
		Build: func(s Spec) (sim.Fault, error) {
			r := Random{Seed: deref(s.Seed), Kinds: s.Kinds}
			if s.Interval != nil {
				if *s.Interval <= 0 {
					return nil, fmt.Errorf("interval: must be positive; leave it out for the lock TTL (%v)", *s.Interval)
				}
				r.Interval = *s.Interval
			}
			if s.Kinds != nil && len(s.Kinds) == 0 {
				return nil, errors.New("kinds: empty; leave it out for the backend's default mix")
			}
			return r, nil
		},
	})
}
