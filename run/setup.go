package run

import (
	"github.com/locksim/locksim/sim/node"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// Setup describes a run of c as the report and verdict.json record it:
// the configuration as plain data, with the facts about the design the
// lock registry knows and the failover as it runs.
func Setup(c sim.Config) history.Setup {
	d := func(v time.Duration) history.Duration { return history.Duration(v) }
	s := history.Setup{
		Algorithm:     c.Algorithm,
		Backend:       string(c.Cluster.Backend),
		Nodes:         c.Cluster.Nodes,
		Persistence:   string(c.Cluster.Persistence),
		Clients:       c.Clients,
		Keys:          c.Keys,
		ReadRatio:     c.ReadRatio,
		TTL:           d(c.Options.TTL),
		Hold:          d(c.Hold),
		Think:         d(c.Think),
		Duration:      d(c.Duration),
		Drift:         c.Options.Drift,
		RetryDelay:    d(c.Options.Retry.Interval),
		NodeTimeout:   d(c.Options.NodeTimeout),
		Watchdog:      c.Options.Watchdog,
		ValidityCheck: c.Options.ValidityCheck,
		Fencing:       c.Fencing(),
		Faults:        []string{},
		FencingOption: c.Options.Fencing,
		Tolerance:     d(c.Options.Tolerance),
		Wait:          c.Options.Wait.String(),
		Replicas:      c.Cluster.Replicas,
		Seed:          c.Seed,
	}
	if info, err := lock.Lookup(c.Algorithm); err == nil {
		s.Registered, s.MultiNode = true, info.MultiNode
	}
	if n := c.Options.Retry.MaxTries; n > 0 {
		s.Retries = &[]int{n - 1}[0]
	}
	for _, f := range c.Faults {
		s.Faults = append(s.Faults, f.String())
	}
	if c.Cluster.Replicas > 0 {
		s.Failover = failoverSetup(c.Cluster)
	}
	return s
}

// resultSetup is Setup of the configuration res ran, with the server its
// first node named.
func resultSetup(res *sim.Result) history.Setup {
	s := Setup(res.Config)
	s.Server = res.Server.String()
	return s
}

// failoverSetup is the failover c runs with, defaults filled in.
func failoverSetup(c sim.ClusterConfig) *history.FailoverSetup {
	f := c.ResolvedFailover()
	out := &history.FailoverSetup{
		Mode:            string(f.Mode),
		DownAfter:       history.Duration(f.DownAfter),
		FailoverTimeout: history.Duration(f.FailoverTimeout),
		ParallelSyncs:   f.ParallelSyncs,
	}
	if f.Mode == sim.FailoverSentinel {
		out.Product = "Redis"
		if c.Server == sim.ServerValkey {
			out.Product = "Valkey"
		}
		out.SentinelBinary = c.Server.SentinelBinary()
		out.Sentinels, out.Quorum = node.Sentinels, node.SentinelQuorum
	}
	return out
}
