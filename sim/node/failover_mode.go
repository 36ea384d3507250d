package node

import (
	"fmt"
	"time"
)

// FailoverMode says who promotes a replica when a master fails.
type FailoverMode string

const (
	// FailoverSentinel: three redis-sentinel processes (quorum 2) watch
	// every master; killing, pausing or cutting off a master lets them
	// detect it, elect a leader and promote the replica, and the clients
	// follow through Sentinel (redis backend; its default with replicas).
	FailoverSentinel FailoverMode = "sentinel"
	// FailoverDirect: the failover fault kills the master and promotes the
	// replica at once (REPLICAOF NO ONE), instant and certain (redis).
	FailoverDirect FailoverMode = "direct"
	// FailoverEmulated: miniredis has no replication; the failover fault
	// makes the node lose what its replica would not have had.
	FailoverEmulated FailoverMode = "emulated"
)

// FailoverConfig is the scenario's failover: {mode, down_after,
// failover_timeout, parallel_syncs}. The zero value takes the defaults.
type FailoverConfig struct {
	Mode FailoverMode
	// DownAfter is Sentinel's down-after-milliseconds: how long a master
	// may not answer before a sentinel calls it down [1.5s]. At 1 s or
	// less Sentinel calls the master it has just promoted down, too: on
	// +switch-master a sentinel resets its link to the new address and
	// counts the wait for a PONG from then, but it reconnects at most
	// once a second (the last try went to the dead master), so the first
	// PING may go out more than down_after later: +sdown, +odown, and a
	// second failover that aborts for want of a replica.
	DownAfter time.Duration
	// FailoverTimeout is Sentinel's failover-timeout; a failover that did
	// not finish retries after twice this [2s]. 1 s made a sentinel fail
	// back to the rejoined old master before the others had agreed.
	FailoverTimeout time.Duration
	// ParallelSyncs is Sentinel's parallel-syncs [1].
	ParallelSyncs int
}

// Sentinel defaults, small so that a run stays short.
const (
	defaultDownAfter       = 1500 * time.Millisecond
	defaultFailoverTimeout = 2 * time.Second
	defaultParallelSyncs   = 1
)

// withDefaults fills the mode from the backend and the Sentinel settings,
// and names the first field that cannot work.
func (f FailoverConfig) withDefaults(b Backend, replicas int) (FailoverConfig, error) {
	if b == BackendRedisCluster {
		if f != (FailoverConfig{}) {
			return f, fmt.Errorf("failover: a Redis Cluster elects its own replicas: no failover settings on backend %s", b)
		}
		return f, nil
	}
	if f.Mode != "" && f.Mode != FailoverSentinel && (f.DownAfter != 0 || f.FailoverTimeout != 0 || f.ParallelSyncs != 0) {
		return f, fmt.Errorf("failover: down_after, failover_timeout and parallel_syncs are Sentinel's settings; mode %s has no use for them", f.Mode)
	}
	defaulted := f.Mode == ""
	if defaulted {
		switch {
		case b == BackendMiniredis:
			f.Mode = FailoverEmulated
		case b == BackendRedis && replicas > 0:
			f.Mode = FailoverSentinel
		default:
			f.Mode = FailoverDirect
		}
	}
	switch f.Mode {
	case FailoverSentinel:
		if b != BackendRedis {
			return f, fmt.Errorf("failover.mode %s: needs backend redis (on %s use emulated)", f.Mode, b)
		}
		if replicas < 1 {
			return f, fmt.Errorf("failover.mode %s: needs replicas: 1 (Sentinel promotes a replica)", f.Mode)
		}
	case FailoverDirect:
		switch b {
		case BackendMiniredis:
			// The emulated failover is a direct promotion in memory: the
			// master dies and its replica is promoted at once. A file that
			// says direct replays the same on both backends.
			f.Mode = FailoverEmulated
		case BackendRedis:
		default:
			return f, fmt.Errorf("failover.mode %s: needs backend redis or miniredis (on %s locksim controls no process)", f.Mode, b)
		}
	case FailoverEmulated:
		if b != BackendMiniredis {
			return f, fmt.Errorf("failover.mode %s: only on miniredis (on %s use sentinel or direct)", f.Mode, b)
		}
	default:
		return f, fmt.Errorf("failover.mode %q: unknown; want sentinel, direct or emulated", f.Mode)
	}
	if f.Mode != FailoverSentinel {
		if defaulted {
			// Sentinel's settings without a mode apply only where the
			// backend's default is sentinel: one file for both backends.
			f.DownAfter, f.FailoverTimeout, f.ParallelSyncs = 0, 0, 0
		}
		return f, nil
	}
	if f.DownAfter == 0 {
		f.DownAfter = defaultDownAfter
	}
	if f.FailoverTimeout == 0 {
		f.FailoverTimeout = defaultFailoverTimeout
	}
	if f.ParallelSyncs == 0 {
		f.ParallelSyncs = defaultParallelSyncs
	}
	switch {
	case f.DownAfter < 10*time.Millisecond:
		return f, fmt.Errorf("failover.down_after %v: must be at least 10ms", f.DownAfter)
	case f.FailoverTimeout < 100*time.Millisecond:
		return f, fmt.Errorf("failover.failover_timeout %v: must be at least 100ms", f.FailoverTimeout)
	case f.ParallelSyncs < 1:
		return f, fmt.Errorf("failover.parallel_syncs %d: must be at least 1", f.ParallelSyncs)
	}
	return f, nil
}

// Check names the first field of f that cannot work with backend b and
// replicas per master (a scenario's failover: block). Sentinel's settings
// given without a mode apply when the backend's default is sentinel.
func (f FailoverConfig) Check(b Backend, replicas int) error {
	if b == "" {
		b = BackendMiniredis
	}
	_, err := f.withDefaults(b, replicas)
	return err
}

// Sentinel reports whether Sentinel runs the cluster's failovers.
func (cfg ClusterConfig) Sentinel() bool { return cfg.Failover.Mode == FailoverSentinel }

// sentinelMode is Sentinel() for a configuration whose defaults are not
// filled in yet.
func (cfg ClusterConfig) sentinelMode() bool {
	f, err := cfg.Failover.withDefaults(cfg.Backend, cfg.Replicas)
	return err == nil && f.Mode == FailoverSentinel
}

// ResolvedFailover is the failover cfg runs with, defaults filled in (the
// zero value when cfg cannot run).
func (cfg ClusterConfig) ResolvedFailover() FailoverConfig {
	if cfg.Backend == "" {
		cfg.Backend = BackendMiniredis
	}
	f, err := cfg.Failover.withDefaults(cfg.Backend, cfg.Replicas)
	if err != nil {
		return FailoverConfig{}
	}
	return f
}
