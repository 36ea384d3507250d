package scenarios

import (
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// Overrides are what a command line sets over a scenario (locksim run's
// flags). A nil or empty field leaves the scenario's own value. Errors
// name the flag as locksim spells it (--nodes, --ttl), so that a caller can
// print them as they are.
type Overrides struct {
	// Algorithms are the designs to run in place of the scenario's
	// (--algos); Override checks that each is registered and leaves the
	// scenario's list alone, since which designs it expects as skip
	// still applies.
	Algorithms []string
	// Backend replaces the scenario's backend (--backend miniredis or
	// redis; the external backend comes with Servers.Addrs).
	Backend string
	// Server replaces the scenario's server (--server redis or valkey),
	// which the redis backend runs.
	Server   string
	Nodes    *int
	Clients  *int
	TTL      *time.Duration
	Duration *time.Duration
	Hold     *time.Duration
	Seed     *uint64
	// Addrs are the external servers the run will use (Servers.Addrs):
	// one per node, so a node count that differs is refused rather than
	// silently reshaped.
	Addrs []string
}

// FaultFree is the scenario of a run without a file: no faults, nothing
// expected, every other field left to its default, for the designs the
// caller names (at least one).
func FaultFree(algos []string) (*Scenario, error) {
	if len(algos) == 0 {
		return nil, errors.New("give a scenario (see 'locksim list') or --algos for a fault-free run")
	}
	return &Scenario{Name: "adhoc", Doc: "fault-free run from command-line flags"}, nil
}

// Override applies o to s and checks every value it sets by the same
// range rules as a file's (sim.CheckValue). The first problem comes back
// as one line naming the flag and the value ("--nodes 0: need at least
// 1"); s is then partly changed and should not be run.
func (s *Scenario) Override(o Overrides) error {
	for _, a := range o.Algorithms {
		if _, err := lock.Lookup(a); err != nil {
			return fmt.Errorf("--algos: %w", err)
		}
	}
	if o.Backend != "" {
		s.Backend = o.Backend
	}
	if o.Server != "" {
		if err := node.CheckServer(sim.Server(o.Server)); err != nil {
			return fmt.Errorf("--server %q: want %s", o.Server, node.ServerNames())
		}
		if sim.Server(o.Server) != sim.ServerRedis && !sim.Backend(s.Backend).RunsServer() {
			return fmt.Errorf("--server %s: scenario %s runs on backend %s; add --backend redis", o.Server, s.Name, orMiniredis(s.Backend))
		}
		s.Server = o.Server
	}
	ints := []struct {
		flag, field string
		v           *int
		dst         **int
	}{{"nodes", "nodes", o.Nodes, &s.Nodes}, {"clients", "clients", o.Clients, &s.Clients}}
	for _, f := range ints {
		if f.v == nil {
			continue
		}
		if err := flagError(f.flag, sim.CheckValue(f.field, *f.v)); err != nil {
			return err
		}
		*f.dst = ptr(*f.v)
	}
	durations := []struct {
		flag, field string
		v           *time.Duration
		dst         **Duration
	}{{"ttl", "options.ttl", o.TTL, &s.Options.TTL}, {"duration", "duration", o.Duration, &s.Duration}, {"hold", "hold", o.Hold, &s.Hold}}
	for _, f := range durations {
		if f.v == nil {
			continue
		}
		if err := flagError(f.flag, sim.CheckValue(f.field, *f.v)); err != nil {
			return err
		}
		*f.dst = ptr(Duration(*f.v))
	}
	if o.Seed != nil {
		s.Seed = ptr(*o.Seed)
	}
	if n := len(o.Addrs); n > 0 && s.Nodes != nil && *s.Nodes != n {
		given := fmt.Sprintf("%d addresses", n)
		if n == 1 {
			given = "1 address"
		}
		if o.Nodes != nil {
			return fmt.Errorf("--nodes %d but --addrs gives %s (one per node)", *s.Nodes, given)
		}
		return fmt.Errorf("scenario %s has nodes: %d but --addrs gives %s (one per node)", s.Name, *s.Nodes, given)
	}
	return nil
}

func orMiniredis(backend string) string {
	if backend == "" {
		return string(sim.BackendMiniredis)
	}
	return backend
}

// flagError words a range error of sim.CheckValue for a flag.
func flagError(flag string, err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s %s: %s", flag, fe.Value, fe.Msg)
	}
	return err
}
