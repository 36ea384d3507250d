package history

import (
	"encoding/json"
	"fmt"
	"time"
)

// Setup is what a run was, resolved: the design and the facts about it a
// reader needs, the cluster, the workload, the lock's options and the
// faults as planned. It is plain data, filled by whoever ran the history
// from its configuration, so that the report, verdict.json and the
// commands reading run directories describe a run without the simulator.
// verdict.json records it as "config"; durations are in Go syntax
// ("500ms"), as in scenario.yaml.
type Setup struct {
	Algorithm string `json:"algorithm"`
	Backend   string `json:"backend"`
	// Server is the server the redis backend ran and its version, as
	// its INFO said ("redis 7.0.15", "valkey 8.0.1").
	Server      string   `json:"server,omitempty"`
	Nodes       int      `json:"nodes"`
	Persistence string   `json:"persistence,omitempty"`
	Clients     int      `json:"clients"`
	Keys        int      `json:"keys"`
	ReadRatio   float64  `json:"read_ratio,omitempty"`
	TTL         Duration `json:"ttl"`
	Hold        Duration `json:"hold"`
	Think       Duration `json:"think"`
	Duration    Duration `json:"duration"`
	Drift       float64  `json:"drift"`
	// Retries counts attempts after the first; absent: until the run ends.
	Retries       *int     `json:"retries,omitempty"`
	RetryDelay    Duration `json:"retry_delay"`
	NodeTimeout   Duration `json:"node_timeout"`
	Watchdog      bool     `json:"watchdog"`
	ValidityCheck bool     `json:"validity_check"`
	// Fencing: the run's sections are fenced writes (the option, or a
	// design whose leases carry tokens).
	Fencing bool `json:"fencing"`
	// Faults are the planned faults, as printed (kind, target, schedule).
	Faults []string `json:"faults"`

	// Registered: the design is in the lock registry, so MultiNode is
	// known; a design it does not know is judged from its history.
	Registered bool `json:"registered,omitempty"`
	// MultiNode: the design locks on every node (Redlock); a single-node
	// design uses node 0.
	MultiNode bool `json:"multi_node,omitempty"`
	// FencingOption is the fencing option alone, without the design's own.
	FencingOption bool `json:"fencing_option,omitempty"`
	// Tolerance is the lock's tolerance option; zero when unset.
	Tolerance Duration `json:"tolerance,omitempty"`
	// Wait is how a blocking acquire waits between attempts ("poll",
	// "notify").
	Wait     string `json:"wait,omitempty"`
	Replicas int    `json:"replicas,omitempty"`
	// Failover is who fails a master over when Replicas > 0.
	Failover *FailoverSetup `json:"failover,omitempty"`
	// Seed seeds the run's randomness.
	Seed uint64 `json:"seed,omitempty"`
}

// FailoverSetup is a run's failover, defaults filled in.
type FailoverSetup struct {
	// Mode is sentinel, direct or emulated.
	Mode string `json:"mode"`
	// Product is the server that runs the sentinels ("Redis", "Valkey"),
	// SentinelBinary the program, Sentinels how many and Quorum theirs.
	Product         string   `json:"product,omitempty"`
	SentinelBinary  string   `json:"sentinel_binary,omitempty"`
	Sentinels       int      `json:"sentinels,omitempty"`
	Quorum          int      `json:"quorum,omitempty"`
	DownAfter       Duration `json:"down_after,omitempty"`
	FailoverTimeout Duration `json:"failover_timeout,omitempty"`
	ParallelSyncs   int      `json:"parallel_syncs,omitempty"`
}

// Failover modes of FailoverSetup.Mode.
const (
	FailoverSentinel = "sentinel"
	FailoverDirect   = "direct"
	FailoverEmulated = "emulated"
)

// NodesUsed is how many of the cluster's nodes the design locks on: one
// for a single-node design, every node for a multi-node one; for a design
// the registry does not know, the most nodes an acquire of h asked or was
// granted by.
func (s Setup) NodesUsed(h History) int {
	if s.Registered {
		if s.MultiNode {
			return s.Nodes
		}
		return min(1, s.Nodes)
	}
	used := 0
	for _, op := range h.Ops {
		if op.Kind != KindAcquire {
			continue
		}
		used = max(used, op.Asked)
		for _, g := range op.Granted {
			used = max(used, g+1)
		}
	}
	if used == 0 {
		return s.Nodes
	}
	return min(used, s.Nodes)
}

// Duration is a time.Duration written in Go syntax ("1.5s") in JSON.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string like \"500ms\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
