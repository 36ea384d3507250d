package review

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/locksim/locksim/bench"
	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/matrix"
	"github.com/locksim/locksim/scenarios"
)

// CostClients and CostContention choose the bench cell the safety-vs-cost
// comparison reads cycles/s from: per-client keys (what one lock cycle
// costs) at 16 clients, or the nearest client count the run measured.
const (
	CostClients    = 16
	CostContention = bench.KeyPerClient
)

// Cost is the design review's safety-vs-cost comparison: for every design
// of the matrix, its throughput in one bench cell beside how many of the
// catalogue's fault scenarios it came through safe.
type Cost struct {
	Clients    int
	Contention bench.Contention
	Rows       []CostRow
	// Raw is the raw limit's cycles/s at one node in the same cell (0 when
	// not measured), the ceiling every single-node design is under.
	Raw float64
	// RawFanout is raw's cycles/s at the largest cluster measured
	// (RawNodes), the ceiling of the multi-node designs; 0 when not
	// measured.
	RawFanout float64
	RawNodes  int
	// Why says what is missing when Rows is empty or has no throughput.
	Why string
}

// CostRow is one design.
type CostRow struct {
	Algorithm string
	// Nodes is the cluster size its throughput was measured at; 0 and
	// CyclesPerS 0 when the bench run did not measure it in the cell.
	Nodes      int
	CyclesPerS float64
	VsRaw      float64
	// Survived counts the fault scenarios the design ran and came through
	// safe in every run; Ran the fault scenarios it ran (skipped and
	// not-applicable pairs are not counted, an unknown or mixed result is
	// not survived).
	Survived, Ran int
}

// SurvivedText is "n of m".
func (r CostRow) SurvivedText() string { return fmt.Sprintf("%d of %d", r.Survived, r.Ran) }

// Share is Survived / Ran (0 when it ran none).
func (r CostRow) Share() float64 {
	if r.Ran == 0 {
		return 0
	}
	return float64(r.Survived) / float64(r.Ran)
}

// faultScenario reports whether a matrix row is a scenario with faults (a
// control without faults says nothing about surviving one). A scenario
// that cannot be looked up any more counts as one.
func faultScenario(row matrix.Row) bool {
	name := row.Name
	if row.File != "" {
		name = row.File
	}
	s, err := scenarios.Lookup(name)
	return err != nil || len(s.Faults) > 0
}

// survived reports whether every run of a cell that ran was safe.
func survived(c matrix.Cell) bool {
	if c.Status != matrix.CellRan || len(c.Runs) == 0 {
		return false
	}
	for _, r := range c.Runs {
		if r.Verdict != checker.Safe {
			return false
		}
	}
	return true
}

// CostOf builds the comparison from a matrix and, when there is one, a
// bench report, at CostClients (or the nearest measured) and
// CostContention. Designs are sorted by scenarios survived, then by
// throughput, both descending.
func CostOf(m matrix.Matrix, rep *bench.Report) Cost {
	c := Cost{Contention: CostContention}
	faulty := map[string]bool{}
	for _, row := range m.Scenarios {
		faulty[row.Name] = faultScenario(row)
	}
	for _, a := range m.Algorithms {
		row := CostRow{Algorithm: a}
		for _, cell := range m.Cells {
			if cell.Algorithm != a || !faulty[cell.Scenario] || cell.Status == matrix.CellSkip || cell.Status == matrix.CellNA {
				continue
			}
			row.Ran++
			if survived(cell) {
				row.Survived++
			}
		}
		c.Rows = append(c.Rows, row)
	}
	switch {
	case rep == nil:
		c.Why = "no lockbench run: the table has no throughput"
	case rep.Under != nil:
		c.Why = "the bench run shown measured a scenario's faults, not the sweep: the table has no throughput"
	default:
		c.Clients = nearestClients(rep, CostClients)
		for i := range c.Rows {
			r := &c.Rows[i]
			if x := cellResult(rep, r.Algorithm, c.Clients, c.Contention); x != nil {
				r.Nodes, r.CyclesPerS, r.VsRaw = x.Nodes, x.Throughput, x.VsRaw
			}
		}
		if raw := cellResult(rep, bench.Raw, c.Clients, c.Contention); raw != nil && raw.Nodes == 1 {
			c.Raw = raw.Throughput
		}
		for _, x := range rep.Results {
			if x.Algorithm == bench.Raw && x.Clients == c.Clients && x.Contention == c.Contention && x.Nodes > 1 && x.Nodes > c.RawNodes {
				c.RawFanout, c.RawNodes = x.Throughput, x.Nodes
			}
		}
		if c.Clients == 0 {
			c.Why = fmt.Sprintf("the bench run has no %s results", c.Contention)
		}
	}
	slices.SortStableFunc(c.Rows, func(a, b CostRow) int {
		if d := cmp.Compare(b.Survived, a.Survived); d != 0 {
			return d
		}
		return cmp.Compare(b.CyclesPerS, a.CyclesPerS)
	})
	return c
}

// nearestClients is the measured client count nearest want (the smaller
// on a tie), 0 when the run has no result in CostContention.
func nearestClients(rep *bench.Report, want int) int {
	best := 0
	for _, x := range rep.Results {
		if x.Contention != CostContention {
			continue
		}
		d, bd := abs(x.Clients-want), abs(best-want)
		if best == 0 || d < bd || d == bd && x.Clients < best {
			best = x.Clients
		}
	}
	return best
}

func abs(v int) int { return max(v, -v) }

// cellResult is a design's result in the cell: for a multi-node design
// (and raw) the largest cluster measured, which is where Redlock is
// compared; otherwise its one node.
func cellResult(rep *bench.Report, algo string, clients int, m bench.Contention) *bench.Result {
	var best *bench.Result
	for i := range rep.Results {
		x := &rep.Results[i]
		if x.Algorithm != algo || x.Clients != clients || x.Contention != m {
			continue
		}
		if algo == bench.Raw && x.Nodes != 1 {
			continue // raw's ceiling line is the single-node one
		}
		if best == nil || x.Nodes > best.Nodes {
			best = x
		}
	}
	return best
}

// Caption says what the chart and table show.
func (c Cost) Caption() string {
	s := "Throughput against safety: each design's lock cycles per second"
	if c.Clients > 0 {
		s += fmt.Sprintf(" at %d clients, %s keys (multi-node designs at the largest cluster measured)", c.Clients, c.Contention)
	}
	s += ", against how many of the catalogue's fault scenarios it came through safe in every run (of those it ran; controls without faults not counted)."
	if c.Raw > 0 {
		s += fmt.Sprintf(" The raw single-node limit in the same cell: %.0f cycles/s.", c.Raw)
	}
	if c.RawFanout > 0 {
		s += fmt.Sprintf(" The raw fan-out to %d nodes: %.0f cycles/s.", c.RawNodes, c.RawFanout)
	}
	return s
}
