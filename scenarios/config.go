package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// Config resolves the scenario for one algorithm into the configuration a
// run takes. algo may be any registered design, also one the scenario does
// not list (a CLI's --algos); whether the scenario skips it is Expect's to
// say. Fields the file leaves out stay zero for sim.Config.Resolve,
// except validity_check, whose default is on.
func (s *Scenario) Config(algo string) (sim.Config, error) {
	cfg, _, err := s.resolve(algo)
	return cfg, err
}

// resolve is the configuration of algo as the file gives it and as it
// runs, every default filled in.
func (s *Scenario) resolve(algo string) (sim.Config, sim.Spec, error) {
	if err := s.check(); err != nil {
		return sim.Config{}, sim.Spec{}, err
	}
	if err := s.checkDesign(algo); err != nil {
		return sim.Config{}, sim.Spec{}, err
	}
	cfg, err := s.build(algo)
	if err != nil {
		return sim.Config{}, sim.Spec{}, err
	}
	spec, err := s.validate(algo, cfg)
	if err != nil {
		return sim.Config{}, sim.Spec{}, err
	}
	return cfg, spec, nil
}

// build is the sim.Config of algo, the scenario checked but not yet
// against the design (checkDesign) or the simulator (validate).
func (s *Scenario) build(algo string) (sim.Config, error) {
	cfg := sim.Config{
		Algorithm: algo,
		Options:   s.Options.lock(),
		Cluster: sim.ClusterConfig{
			Backend:     sim.Backend(s.Backend),
			Server:      sim.Server(s.Server),
			Nodes:       deref(s.Nodes),
			Replicas:    deref(s.Replicas),
			Persistence: sim.Persistence(s.Persistence),
			Failover:    s.Failover.sim(),
		},
		Clients:   deref(s.Clients),
		Keys:      deref(s.Keys),
		ReadRatio: deref(s.ReadRatio),
		Nest:      deref(s.Nest),
		Duration:  deref(s.Duration).D(),
		Hold:      deref(s.Hold).D(),
		Think:     deref(s.Think).D(),
		Seed:      deref(s.Seed),
	}
	for _, r := range s.Roles {
		cfg.Roles = append(cfg.Roles, roleAccess[r])
	}
	for i, f := range s.Faults {
		p, err := f.plan()
		if err != nil {
			return sim.Config{}, s.errf(fmt.Sprintf("faults[%d]", i), "%v", err)
		}
		cfg.Faults = append(cfg.Faults, p)
	}
	return cfg, nil
}

// validate resolves cfg, built from s, as the simulator will run it. A
// fault's refusal (which sim.Config.Resolve finds first, since a fault's
// own validation knows its kind best) names the fault's line; the checks
// before should leave nothing else for the simulator to refuse, but if
// they do (the external backend's cluster refusals, say), it is said now
// rather than at run time.
func (s *Scenario) validate(algo string, cfg sim.Config) (sim.Spec, error) {
	spec, err := cfg.Resolve()
	if err == nil {
		return spec, nil
	}
	if fe := s.faultError(err); fe != nil {
		return sim.Spec{}, fe
	}
	if fe := s.fieldError(err, ""); fe != nil {
		return sim.Spec{}, fe
	}
	return sim.Spec{}, &Error{File: s.file, Msg: fmt.Sprintf("%s: %v", algo, err)}
}

// faultError is err, a refusal of sim.Config.Resolve, on the line of the
// fault that refused; nil when no fault did.
func (s *Scenario) faultError(err error) error {
	var f *sim.FaultError
	if !errors.As(err, &f) || f.Fault == nil {
		return nil
	}
	base := fmt.Sprintf("faults[%d]", f.Index)
	if fe := s.fieldError(f.Err, base+"."); fe != nil {
		return fe
	}
	return s.errf(base, "%s: %v", f.Fault, f.Err)
}

// waitsNotified says whether the file asks for wait: notify (checkOptions
// has refused any spelling but poll and notify).
func (o Options) waitsNotified() bool {
	return o.Wait != nil && *o.Wait == lock.WaitNotify.String()
}

// lock turns the options into lock.Options, leaving out what the simulator
// sets per client (clock, hook, owner, tokens, seed).
func (o Options) lock() lock.Options {
	out := lock.Options{
		TTL:           deref(o.TTL).D(),
		Drift:         deref(o.Drift),
		NodeTimeout:   deref(o.NodeTimeout).D(),
		Watchdog:      deref(o.Watchdog),
		ValidityCheck: o.ValidityCheck == nil || *o.ValidityCheck,
		Fencing:       deref(o.Fencing),
		Tolerance:     deref(o.Tolerance).D(),
		Retry:         lock.RetryPolicy{Interval: deref(o.RetryDelay).D()},
	}
	if o.waitsNotified() {
		out.Wait = lock.WaitNotify
	}
	if o.Retries != nil {
		out.Retry.MaxTries = *o.Retries + 1
	}
	return out
}

// plan schedules a checked fault: its kind's fault, its trigger and its end.
func (f FaultSpec) plan() (sim.Planned, error) {
	kind, ok := faults.Lookup(f.Kind)
	if !ok {
		return sim.Planned{}, fmt.Errorf("fault kind %q is not supported", f.Kind)
	}
	fault, err := f.build(kind)
	if err != nil {
		return sim.Planned{}, err
	}
	p := sim.Planned{Fault: fault, For: deref(f.For).D()}
	if f.At != nil {
		p.Start = sim.Trigger{At: f.At.D()}
	} else {
		p.Start = f.When.trigger(f.Client)
	}
	if f.Until != nil {
		t := f.Until.trigger(f.Client)
		p.Until = &t
	}
	return p, nil
}

// trigger fills in the defaults: the fault's own client (any client for a
// fault of none), the first time.
func (ps *PointSpec) trigger(faultClient *int) sim.Trigger {
	t := sim.Trigger{Point: history.Point(ps.Point), Nth: 1}
	switch {
	case ps.Client != nil:
		t.Client = *ps.Client
	case faultClient != nil:
		t.Client = *faultClient
	default:
		t.AnyClient = true
	}
	if ps.Nth != nil {
		t.Nth = *ps.Nth
	}
	return t
}

// Resolved writes the scenario as it runs for algo: that algorithm alone,
// every default filled in (sim.Config.Resolve's), each trigger's client
// and nth explicit, and only algo's expectation. It parses back to the same configuration; a run
// directory's scenario.yaml is this.
//
// Options.Retries stays out when the file leaves it out: its default is to
// retry until the run ends, which no number says.
func (s *Scenario) Resolved(algo string) ([]byte, error) {
	_, spec, err := s.resolve(algo)
	if err != nil {
		return nil, err
	}
	return s.resolvedYAML(algo, spec, Servers{})
}

// resolvedYAML is Resolved of spec, s's configuration for algo, with what
// the schema cannot say about the servers w as comments in place
// (serversComment).
func (s *Scenario) resolvedYAML(algo string, spec sim.Spec, w Servers) ([]byte, error) {
	d := spec.Config()
	r := &Scenario{
		Name:        s.Name,
		Doc:         s.Doc,
		Source:      s.Source,
		Algorithm:   AlgorithmList{algo},
		Backend:     string(d.Cluster.Backend),
		Nodes:       ptr(d.Cluster.Nodes),
		Replicas:    ptr(d.Cluster.Replicas),
		Persistence: string(d.Cluster.Persistence),
		Failover:    resolvedFailover(d.Cluster),
		Server:      resolvedServer(d.Cluster),
		Clients:     ptr(d.Clients),
		Keys:        ptr(d.Keys),
		ReadRatio:   ptr(d.ReadRatio),
		Roles:       s.Roles,
		Nest:        ptr(d.Nest),
		Duration:    ptr(Duration(d.Duration)),
		Hold:        ptr(Duration(d.Hold)),
		Think:       ptr(Duration(d.Think)),
		Seed:        ptr(d.Seed),
		Options: Options{
			TTL:           ptr(Duration(d.Options.TTL)),
			Drift:         ptr(d.Options.Drift),
			Retries:       s.Options.Retries,
			RetryDelay:    ptr(Duration(d.Options.Retry.Interval)),
			Watchdog:      ptr(d.Options.Watchdog),
			Fencing:       ptr(d.Options.Fencing),
			ValidityCheck: ptr(d.Options.ValidityCheck),
			NodeTimeout:   ptr(Duration(d.Options.NodeTimeout)),
			Tolerance:     ptr(Duration(d.Options.Tolerance)),
			Wait:          ptr(d.Options.Wait.String()),
		},
	}
	if r.Persistence == "" {
		r.Persistence = string(sim.PersistenceNone)
	}
	for _, f := range s.Faults {
		f.When = f.When.resolved(f.Client)
		f.Until = f.Until.resolved(f.Client)
		r.Faults = append(r.Faults, f)
	}
	for _, q := range s.Require {
		if len(q.Designs) == 0 || slices.Contains(q.Designs, algo) {
			q.Designs = nil // the resolved file runs algo alone
			r.Require = append(r.Require, q)
		}
	}
	if e, ok := s.Expect(algo); ok {
		r.Expectations = Expectations{algo: e}
	}
	var doc yaml.Node
	if err := doc.Encode(r); err != nil {
		return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
	}
	if err := w.comment(&doc); err != nil {
		return nil, fmt.Errorf("%w: scenario %s: resolved for %s: %w", sim.ErrHarness, s.Name, algo, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s resolved for %s: every default filled in.\n", s.Name, algo)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
	}
	return b.Bytes(), nil
}

func (ps *PointSpec) resolved(faultClient *int) *PointSpec {
	if ps == nil {
		return nil
	}
	t := ps.trigger(faultClient)
	out := &PointSpec{Point: string(t.Point), Nth: ptr(t.Nth)}
	if !t.AnyClient {
		out.Client = ptr(t.Client)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// resolvedFailover: the failover block a run's scenario.yaml shows, only
// where there is a replica to fail over to.
func resolvedFailover(c sim.ClusterConfig) *Failover {
	if c.Replicas < 1 {
		return nil
	}
	f := c.ResolvedFailover()
	out := &Failover{Mode: string(f.Mode)}
	if f.Mode == sim.FailoverSentinel {
		out.DownAfter, out.FailoverTimeout, out.ParallelSyncs = ptr(Duration(f.DownAfter)), ptr(Duration(f.FailoverTimeout)), ptr(f.ParallelSyncs)
	}
	return out
}

// resolvedServer is the server a run's scenario.yaml names: the redis
// backend's, where it is not the default; nothing on the other backends.
func resolvedServer(c sim.ClusterConfig) string {
	if !c.Backend.RunsServer() || c.Server == "" || c.Server == sim.ServerRedis {
		return ""
	}
	return string(c.Server)
}
