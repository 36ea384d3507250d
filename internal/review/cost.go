package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/lock"
)

// CostClients and CostContention are the bench cells the cost table reads:
// per-client keys (what one lock cycle costs, nobody refused) at 1, 16 and
// 64 clients.
var CostClients = []int{1, 16, 64}

const CostContention = bench.KeyPerClient

// Cost is what each design of the matrix costs against the raw Redis
// limit measured in the same rounds, beside its safety over the fault
// scenarios every design compared ran.
type Cost struct {
	Clients []int
	Rows    []CostRow
	// Common is the fault scenarios every design of the matrix ran: the
	// set each row's Safe counts over.
	Common []string
	// Raw is raw's cycles/s per node count measured, per client count
	// (Raw[nodes][i] for Clients[i]), for the caption.
	Raw map[int][]float64
	// Why says why there are no ratios at all ("" when there are).
	Why string
	// Gaps say what the bench run left out of the comparison.
	Gaps []string
	// Limited says the bench run measured the server's cycle limit, so
	// that the throughput ratios carry their fraction of it.
	Limited bool
}

// CostRow is one design.
type CostRow struct {
	Algorithm string
	// Safe counts the Common scenarios it came through safe in every run.
	Safe int
	// Nodes is the cluster size it is compared at: one for a single-node
	// design, the largest measured for a multi-node one (raw is then the
	// bare majority fan-out at that size); 0 when not measured.
	Nodes int
	// Throughput and P99 are the ratios to raw at each of Clients.
	Throughput, P99 []Ratio
}

// SafeText is "9/14".
func (r CostRow) SafeText(c Cost) string { return fmt.Sprintf("%d/%d", r.Safe, len(c.Common)) }

// Ratio is a design's figure over raw's, round by round: the median and
// the rounds' range.
type Ratio struct {
	bench.Spread
	// LowerBetter: a latency, where a design above raw is the expected
	// side; a throughput otherwise.
	LowerBetter bool
	// Limit is a throughput's fraction of the server's cycle limit at the
	// same client count (bench.Result.VsLimit); 0 when not measured.
	Limit float64
}

// Measured reports whether there is a ratio.
func (r Ratio) Measured() bool { return r.Rounds > 0 }

// Noise reports whether the ratio cannot be told from raw's: its rounds
// reach the raw limit or pass it (a lock cannot beat raw; a design
// measured beyond it is the machine's noise, not the design).
func (r Ratio) Noise() bool {
	if !r.Measured() {
		return false
	}
	if r.LowerBetter {
		return r.Min <= 1
	}
	return r.Max >= 1
}

// Text is the cell on one line: "0.93 (0.91–0.95)"; when Noise "0.84,
// within noise (0.47–1.06)", or "≈1.0, within noise (0.97–1.08)" for a
// median beyond raw's; "not measured" without rounds. Fewer
// rounds than a spread needs are said.
func (r Ratio) Text() string {
	if sub := r.Sub(); sub != "" {
		return r.Head() + " " + sub
	}
	return r.Head()
}

// Head is the cell's figure: the median; "≈1.0" for a median beyond
// raw's (never printed bare); "not measured". A figure within the noise
// ends in a comma, its note follows (Sub).
func (r Ratio) Head() string {
	switch {
	case !r.Measured():
		return "not measured"
	case r.Noise() && (r.LowerBetter && r.Median < 1 || !r.LowerBetter && r.Median > 1):
		return "≈1.0,"
	case r.Noise():
		return fmt.Sprintf("%.2f,", r.Median)
	}
	return fmt.Sprintf("%.2f", r.Median)
}

// Sub is what goes under the figure: the rounds' range, with the noise
// note when Noise, and the fraction of the server's cycle limit when it
// was measured.
func (r Ratio) Sub() string {
	sub := r.spreadText()
	if r.Limit > 0 {
		if sub != "" {
			sub += " "
		}
		sub += fmt.Sprintf("· %s of the server's limit", bench.FmtLimit(r.Limit))
	}
	return sub
}

// spreadText is the rounds' range, with the noise note when Noise.
func (r Ratio) spreadText() string {
	switch {
	case !r.Measured():
		return ""
	case r.Noise():
		return fmt.Sprintf("within noise (%.2f–%.2f)", r.Min, r.Max)
	case r.Rounds < bench.MinRepeats:
		return fmt.Sprintf("(%d round(s): no spread)", r.Rounds)
	}
	return fmt.Sprintf("(%.2f–%.2f)", r.Min, r.Max)
}

// multiNode reports whether the design locks on every node.
func multiNode(algo string) bool {
	i, err := lock.Lookup(algo)
	return err == nil && i.MultiNode
}

// CostOf builds the cost table of a matrix from a bench report (nil: none).
func CostOf(m matrix.Matrix, g Grid, rep *bench.Report) Cost {
	c := Cost{Clients: CostClients, Common: g.CommonSet(m, m.Algorithms), Raw: map[int][]float64{}}
	for _, a := range m.Algorithms {
		c.Rows = append(c.Rows, CostRow{Algorithm: a, Safe: SafeOver(m, c.Common, a)})
	}
	switch {
	case rep == nil:
		c.Why = "No lockbench run: the table has no cost."
		return c
	case rep.Under != nil:
		c.Why = "The bench run shown measured a scenario's faults (--under), not the sweep: the table has no cost."
		return c
	}
	c.Limited = len(rep.Limits) > 0
	find := func(algo string, nodes, clients int) *bench.Result {
		for i := range rep.Results {
			x := &rep.Results[i]
			if x.Algorithm == algo && x.Nodes == nodes && x.Clients == clients && x.Contention == CostContention {
				return x
			}
		}
		return nil
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		for _, x := range rep.Results {
			if x.Algorithm != r.Algorithm || x.Contention != CostContention {
				continue
			}
			if multiNode(r.Algorithm) && x.Nodes > r.Nodes || !multiNode(r.Algorithm) && x.Nodes == 1 {
				r.Nodes = x.Nodes
			}
		}
		var missing []string
		for _, k := range c.Clients {
			tp, p99 := Ratio{}, Ratio{LowerBetter: true}
			if x := find(r.Algorithm, r.Nodes, k); r.Nodes > 0 && x != nil {
				tp.Spread, p99.Spread = x.VsRawRounds, x.VsRawP99Rounds
				tp.Limit = x.VsLimit
			}
			if !tp.Measured() {
				missing = append(missing, fmt.Sprint(k))
			}
			r.Throughput, r.P99 = append(r.Throughput, tp), append(r.P99, p99)
		}
		if len(missing) > 0 {
			c.Gaps = append(c.Gaps, fmt.Sprintf("%s has no ratio to raw at %s client(s)", r.Algorithm, andList(missing)))
		}
		if r.Nodes > 0 && !slices.ContainsFunc(c.Rows[:i], func(o CostRow) bool { return o.Nodes == r.Nodes }) {
			var raws []float64
			for _, k := range c.Clients {
				v := 0.0
				if x := find(bench.Raw, r.Nodes, k); x != nil {
					v = x.Throughput
				}
				raws = append(raws, v)
			}
			c.Raw[r.Nodes] = raws
		}
	}
	if rep.Settings.Rounds > 0 && rep.Settings.Rounds < bench.MinRepeats {
		c.Gaps = append(c.Gaps, fmt.Sprintf("%d round(s) per cell: a ratio needs %d for a spread", rep.Settings.Rounds, bench.MinRepeats))
	}
	if !bench.RealServer(rep.Backend) {
		c.Gaps = append(c.Gaps, fmt.Sprintf("backend %s, not redis-server: the ratios show the harness, not Redis", orNone(rep.Backend)))
	}
	return c
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// Caption says what the table compares, and over which set.
func (c Cost) Caption(designs int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "Safety: the share of the %d fault scenarios all %d designs ran that each came through safe in every run (controls without faults left out; the grid above has every scenario). ",
		len(c.Common), designs)
	fmt.Fprintf(&s, "Cost: lock cycles per second and p99 acquire latency at %s clients, %s keys, as ratios to the raw Redis limit measured in the same rounds "+
		"(a single-node design against raw on one node, a multi-node one against raw's bare majority fan-out at the same node count): "+
		"the median of the per-round ratios with the lowest and highest round. A ratio whose rounds reach 1.0 cannot be told from raw and says so.",
		joinInts(c.Clients), CostContention)
	if c.Limited {
		s.WriteString(" Under each throughput ratio, the design's cycles/s as a fraction of the server's own cycle limit at the same client count, " +
			"1/(1/SET + 1/EVALSHA) of one node under a pipelined loop measured in the same run: how close the design comes to what the server can do.")
	}
	var nodes []int
	for n := range c.Raw {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		var parts []string
		for i, v := range c.Raw[n] {
			if v > 0 {
				parts = append(parts, fmt.Sprintf("%.0f at %d", v, c.Clients[i]))
			}
		}
		if len(parts) > 0 {
			what := "on 1 node"
			if n > 1 {
				what = fmt.Sprintf("fanned out to %d nodes", n)
			}
			fmt.Fprintf(&s, " Raw %s: %s clients, cycles/s.", what, strings.Join(parts, ", "))
		}
	}
	return s.String()
}

func joinInts(v []int) string {
	var s []string
	for _, n := range v {
		s = append(s, fmt.Sprint(n))
	}
	return andList(s)
}

// sweepText says how a sweep was measured, in one line.
func sweepText(rep *bench.Report) string {
	s := rep.Settings
	var cont []string
	for _, c := range s.Contention {
		cont = append(cont, string(c))
	}
	return fmt.Sprintf("%s at %s clients, nodes %s, %s keys, %.2g s per configuration in %d interleaved rounds, on %s",
		strings.Join(s.Algorithms, ", "), joinInts(s.Clients), joinInts(s.Nodes), strings.Join(cont, " and "),
		s.DurationS, s.Rounds, orNone(rep.Backend))
}
