package bench

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Kind says what a measured design is to the comparison.
type Kind string

const (
	KindDesign Kind = "design" // one of locksim's own designs
	KindPeer   Kind = "peer"   // someone else's library behind an adapter
	KindRaw    Kind = "raw"    // the raw limit
)

// Result is one configuration: a design at a number of nodes and clients
// under one contention mode.
type Result struct {
	Algorithm  string     `json:"algorithm"`
	Kind       Kind       `json:"kind"`
	Nodes      int        `json:"nodes"`
	Clients    int        `json:"clients"`
	Contention Contention `json:"contention,omitempty"`
	// Scenario names the scenario whose faults played (--under); its
	// figures come from the run's history, and Contention is empty.
	Scenario string `json:"scenario,omitempty"`
	// Seconds is the measured time (the rounds' slices added up).
	Seconds float64 `json:"seconds"`
	// Cycles completed inside the measured time, and Throughput = Cycles /
	// Seconds.
	Cycles     int64   `json:"cycles"`
	Throughput float64 `json:"cycles_per_s"`
	// RoundThroughput is each round's own figure, which shows how much the
	// machine moved during the run.
	RoundThroughput []float64 `json:"round_cycles_per_s"`
	// RoundAcquireP99 is each round's own acquire p99, in µs.
	RoundAcquireP99 []float64 `json:"round_acquire_p99_us,omitempty"`
	// Attempts are single acquire attempts; Refused those refused because
	// another client held the lock (each retried after the retry wait);
	// Errors unknown outcomes and failed releases.
	Attempts int64  `json:"attempts"`
	Refused  int64  `json:"failed_acquires"`
	Errors   int64  `json:"errors"`
	FirstErr string `json:"first_error,omitempty"`
	// Acquire is the blocking acquire, retries included; Cycle is acquire,
	// hold and release up to the release's reply.
	Acquire Percentiles `json:"acquire_latency"`
	Cycle   Percentiles `json:"cycle_latency"`
	// VsRaw and VsPeer are throughput ratios to the raw limit (same nodes,
	// clients and contention) and to the design's peer (the same): the
	// median of the per-round ratios, whose spread VsRawRounds and
	// VsPeerRounds give; 0 when there is nothing to compare with.
	VsRaw       float64 `json:"vs_raw,omitempty"`
	VsRawRounds Spread  `json:"vs_raw_rounds,omitzero"`
	// VsRawP99Rounds is the acquire p99 against raw's, round by round
	// (above 1: slower than raw).
	VsRawP99Rounds Spread  `json:"vs_raw_acquire_p99_rounds,omitzero"`
	Peer           string  `json:"peer,omitempty"`
	VsPeer         float64 `json:"vs_peer,omitempty"`
	VsPeerRounds   Spread  `json:"vs_peer_rounds,omitzero"`
	// VsLimit is the throughput over the server's cycle limit at the same
	// client count (Report.Limits): how much of what one server can do a
	// design's cycles reach; 0 when the limit was not measured.
	VsLimit float64 `json:"vs_limit,omitempty"`
	// AllocsPerCycle and CPUPerCycleUs are this process's heap allocations
	// and CPU time (user and system) over the measured rounds, per
	// completed cycle: the client side's cost (on miniredis the nodes run
	// in this process too, and count).
	AllocsPerCycle float64 `json:"allocs_per_cycle"`
	CPUPerCycleUs  float64 `json:"cpu_per_cycle_us"`

	acquireHist *hdr.Histogram // for the CDF; not in the files
}

// Comparison is one headline ratio: a design against the
// reference it must match, from the same run and the same cell.
type Comparison struct {
	Title      string     `json:"title"`
	Design     string     `json:"design"`
	Reference  string     `json:"reference"`
	Nodes      int        `json:"nodes"`
	Clients    int        `json:"clients"`
	Contention Contention `json:"contention"`
	// Throughput is the median over the rounds of design / reference
	// cycles per second (the two ran back to back in each round); RoundMin
	// and RoundMax are the lowest and highest round, Rounds how many.
	Throughput float64 `json:"throughput_ratio"`
	RoundMin   float64 `json:"round_ratio_min"`
	RoundMax   float64 `json:"round_ratio_max"`
	Rounds     int     `json:"rounds"`
	// Noise says whether the difference is larger than the rounds moved.
	Noise string `json:"noise"`
	// AcquireP99 and CycleP99 are design / reference p99 latencies (lower is
	// better for the design).
	AcquireP99 float64 `json:"acquire_p99_ratio"`
	CycleP99   float64 `json:"cycle_p99_ratio"`
	// Goal is the cost goal for the pair, Met whether the median meets
	// it; no goal ("") for a pair shown for reference.
	Goal string `json:"goal,omitempty"`
	Met  bool   `json:"met"`
}

// Settings are the knobs the numbers depend on.
type Settings struct {
	Algorithms    []string     `json:"algorithms"`
	Clients       []int        `json:"clients"`
	Nodes         []int        `json:"nodes"`
	Contention    []Contention `json:"contention"`
	DurationS     float64      `json:"duration_s"`
	Rounds        int          `json:"rounds"`
	WarmupS       float64      `json:"warmup_s"`
	HoldMs        float64      `json:"hold_ms"`
	TTLMs         float64      `json:"ttl_ms"`
	RetryMs       float64      `json:"retry_interval_ms"`
	RetryJitterMs float64      `json:"retry_jitter_ms"`
	Seed          uint64       `json:"seed"`
}

// Report is everything a run measured, ready to be written.
type Report struct {
	// Format is bench.json's version (FormatVersion when written); 0 in
	// files written before it was recorded, which read the same.
	Format  int     `json:"format,omitempty"`
	Machine Machine `json:"machine"`
	// Backend is the backend and, on redis, the server's version.
	Backend string `json:"backend"`
	// Command is how the run was started; the caller fills it in.
	Command     string       `json:"command,omitempty"`
	Started     time.Time    `json:"started"`
	WallS       float64      `json:"wall_s"`
	Settings    Settings     `json:"settings"`
	Results     []Result     `json:"results,omitempty"`
	Comparisons []Comparison `json:"comparisons,omitempty"`
	Under       *UnderReport `json:"under,omitempty"`
	Notes       []string     `json:"notes,omitempty"`
	// Incomplete says why the sweep stopped before every cell was
	// measured (its context ended: a --timeout); "" for a finished one.
	// The cells that finished are whole; the rest are missing.
	Incomplete string `json:"incomplete,omitempty"`

	// Limits is the server's own limit at each client count, measured on
	// one node in the same run before every cell at that count, the
	// median of those measurements (measureLimit, combineLimits).
	Limits []Limit `json:"server_limit,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
