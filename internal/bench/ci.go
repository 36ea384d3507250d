package bench

// CIResult is one design in one cell, flat, as --json prints it.
type CIResult struct {
	Design         string     `json:"design"`
	Kind           Kind       `json:"kind"`
	Nodes          int        `json:"nodes"`
	Clients        int        `json:"clients"`
	Contention     Contention `json:"contention"`
	CyclesPerS     float64    `json:"cycles_per_s"`
	AcquireP50Us   float64    `json:"acquire_p50_us"`
	AcquireP99Us   float64    `json:"acquire_p99_us"`
	CycleP99Us     float64    `json:"cycle_p99_us"`
	AllocsPerCycle float64    `json:"allocs_per_cycle"`
	CPUPerCycleUs  float64    `json:"cpu_per_cycle_us"`
	Errors         int64      `json:"errors"`
	VsRaw          *Spread    `json:"vs_raw,omitempty"`
	Peer           string     `json:"peer,omitempty"`
	VsPeer         *Spread    `json:"vs_peer,omitempty"`
	// VsLimit is the fraction of the server's cycle limit (Result.VsLimit).
	VsLimit float64 `json:"vs_limit,omitempty"`
}

// CIReport is what lockbench --json prints on stdout: every design and
// cell (raw included), the headline ratios, and, against a baseline, the
// ratios that fell (Compare).
type CIReport struct {
	Results     []CIResult   `json:"results"`
	Comparisons []Comparison `json:"comparisons,omitempty"`
	Baseline    string       `json:"baseline,omitempty"`
	Regressions []Regression `json:"regressions,omitempty"`
	// Unmatched counts the cells' ratios of the run the baseline had
	// nothing to compare with (a design or cell it did not measure).
	Unmatched int    `json:"unmatched,omitempty"`
	Out       string `json:"out,omitempty"`
}

// CI flattens the report for --json.
func (r *Report) CI() CIReport {
	out := CIReport{Results: []CIResult{}, Comparisons: r.Comparisons}
	for _, x := range r.Results {
		c := CIResult{
			Design: x.Algorithm, Kind: x.Kind, Nodes: x.Nodes, Clients: x.Clients, Contention: x.Contention,
			CyclesPerS: x.Throughput, AcquireP50Us: x.Acquire.P50, AcquireP99Us: x.Acquire.P99, CycleP99Us: x.Cycle.P99,
			AllocsPerCycle: x.AllocsPerCycle, CPUPerCycleUs: x.CPUPerCycleUs, Errors: x.Errors, Peer: x.Peer,
			VsLimit: x.VsLimit,
		}
		if x.VsRawRounds.Rounds > 0 {
			c.VsRaw = &x.VsRawRounds
		}
		if x.VsPeerRounds.Rounds > 0 {
			c.VsPeer = &x.VsPeerRounds
		}
		out.Results = append(out.Results, c)
	}
	return out
}
