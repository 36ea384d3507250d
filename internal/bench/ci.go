package bench

import (
	"fmt"
	"path/filepath"
)

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
// ratios that fell.
type CIReport struct {
	Results     []CIResult   `json:"results"`
	Comparisons []Comparison `json:"comparisons,omitempty"`
	Baseline    string       `json:"baseline,omitempty"`
	Regressions []Regression `json:"regressions,omitempty"`
	// Unmatched counts the ratios of the run the baseline had nothing to
	// compare with (a design or cell it did not measure).
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

// Regression is a ratio that fell by more than its noise band since the
// baseline.
type Regression struct {
	Design     string     `json:"design"`
	Ratio      string     `json:"ratio"` // "vs raw" or "vs <peer>"
	Nodes      int        `json:"nodes"`
	Clients    int        `json:"clients"`
	Contention Contention `json:"contention"`
	Was        Spread     `json:"was"`
	Now        Spread     `json:"now"`
	// Band is the noise band the fall exceeded: the larger half-range of
	// the two runs' rounds, at least MinBand.
	Band float64 `json:"band"`
}

func (g Regression) String() string {
	return fmt.Sprintf("%s %s at %d clients, %s, %s fell from %s to %s, more than its noise band ±%.2f",
		g.Design, g.Ratio, g.Clients, g.Contention, nodesText(g.Nodes), g.Was, g.Now, g.Band)
}

// MinBand is the smallest noise band a ratio is judged by: two runs that
// each kept their rounds within a hair of each other still differ by more
// than that from one run to the next.
const MinBand = 0.02

// BaselineFile is the file of an earlier run --baseline reads.
func BaselineFile(dir string) string { return filepath.Join(dir, FileJSON) }

// ReadBaseline reads an earlier run's bench.json for Compare.
func ReadBaseline(dir string) (*Report, error) {
	rep, err := ReadReport(BaselineFile(dir))
	if err != nil {
		return nil, err
	}
	if rep.Under != nil {
		return nil, fmt.Errorf("%s is a run under scenario %q, not a sweep", dir, rep.Under.Scenario)
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("%s has no results", BaselineFile(dir))
	}
	return rep, nil
}

// Compare holds every ratio of cur (each design against raw and against
// its peer, in every cell) against the same ratio in base, and returns
// those that fell by more than their noise band, and how many of cur's
// ratios base had no counterpart for. The baseline's ratios are worked out
// again from its per-round figures, so a bench.json of an older lockbench
// is judged the same way.
func Compare(base, cur *Report) (regs []Regression, unmatched int) {
	was := append([]Result(nil), base.Results...)
	addRatios(was)
	for _, x := range cur.Results {
		b := find(was, x.Algorithm, x.Nodes, x.Clients, x.Contention)
		check := func(name string, now, then Spread) {
			if now.Rounds == 0 {
				return
			}
			if b == nil || then.Rounds == 0 {
				unmatched++
				return
			}
			band := max(now.Band(), then.Band(), MinBand)
			if then.Median-now.Median > band+1e-9 { // a fall of exactly the band is inside it

				regs = append(regs, Regression{Design: x.Algorithm, Ratio: name, Nodes: x.Nodes, Clients: x.Clients,
					Contention: x.Contention, Was: then, Now: now, Band: band})
			}
		}
		var rawThen, peerThen Spread
		if b != nil {
			rawThen, peerThen = b.VsRawRounds, b.VsPeerRounds
		}
		check("vs raw", x.VsRawRounds, rawThen)
		if x.Peer != "" {
			check("vs "+x.Peer, x.VsPeerRounds, peerThen)
		}
	}
	return regs, unmatched
}
