package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The regression gate (lockbench --baseline) holds the ratios of a run
// against a baseline, the per-cell median of a few earlier runs. A ratio is a design's throughput over its
// reference's (raw, or the design's peer) measured in the same
// interleaved rounds of one run, so the machine's load falls on both; what
// load still does is move single rounds, and under heavy load all rounds
// of a cell now and then. So a fall counts only when the whole range of
// the run's rounds lies below the baseline's lowest round by more than
// Margin, and a ratio (design against one reference at one cluster size)
// fell only when at least MinCells of its cells fell so: a slower design
// is slower at every client count and contention, a burst of load hits
// one cell.
const (
	// Margin is how far, as a fraction, the run's highest round must lie
	// below the baseline's lowest for a cell to count as fallen.
	Margin = 0.10
	// MinCells is how many cells of a ratio must have fallen (or all of
	// them, when the ratio was measured in fewer).
	MinCells = 2
)

// BaselineFormat marks a baseline file.
const BaselineFormat = "lockbench-baseline/1"

// BaselineRuns is how many runs a baseline file keeps: --save-baseline
// adds a run and drops the oldest beyond these.
const BaselineRuns = 5

// Baseline is the file --baseline reads and --save-baseline writes: the
// ratios of a few runs, each with what made it. A run is compared with
// their per-cell median (Ratios), so that one run a burst of load lifted
// or sank does not make the baseline.
type Baseline struct {
	Format string        `json:"format"`
	Runs   []BaselineRun `json:"runs"`
}

// BaselineRun is the ratios of one run with the command that made them.
type BaselineRun struct {
	Command string  `json:"command"`
	Made    string  `json:"made"`           // UTC date and time of the run
	Machine string  `json:"machine"`        // cores and CPU
	Backend string  `json:"backend"`        // server and version
	Load    string  `json:"load,omitempty"` // /proc/loadavg when the run ended
	Ratios  []Ratio `json:"ratios"`
}

// Ratio is one ratio in one cell: Design against Against ("raw" or the
// peer) at Nodes, Clients and Contention, with its rounds' spread.
type Ratio struct {
	Design     string     `json:"design"`
	Against    string     `json:"against"`
	Nodes      int        `json:"nodes"`
	Clients    int        `json:"clients"`
	Contention Contention `json:"contention"`
	Spread
}

type ratioCell struct {
	design, against string
	nodes, clients  int
	contention      Contention
}

func (r Ratio) id() ratioCell {
	return ratioCell{r.Design, r.Against, r.Nodes, r.Clients, r.Contention}
}

// RatiosOf lists every ratio of a sweep's report, worked out again from
// its per-round figures (so a bench.json of an older lockbench reads the
// same), in a stable order.
func RatiosOf(rep *Report) []Ratio {
	rs := slices.Clone(rep.Results)
	addRatios(rs)
	var out []Ratio
	for _, x := range rs {
		if x.VsRawRounds.Rounds > 0 {
			out = append(out, Ratio{Design: x.Algorithm, Against: Raw, Nodes: x.Nodes, Clients: x.Clients, Contention: x.Contention, Spread: x.VsRawRounds})
		}
		if x.Peer != "" && x.VsPeerRounds.Rounds > 0 {
			out = append(out, Ratio{Design: x.Algorithm, Against: x.Peer, Nodes: x.Nodes, Clients: x.Clients, Contention: x.Contention, Spread: x.VsPeerRounds})
		}
	}
	sortRatios(out)
	return out
}

func sortRatios(rs []Ratio) {
	slices.SortFunc(rs, func(a, b Ratio) int {
		return cmp.Or(strings.Compare(a.Design, b.Design), strings.Compare(a.Against, b.Against),
			cmp.Compare(a.Nodes, b.Nodes), strings.Compare(string(a.Contention), string(b.Contention)), cmp.Compare(a.Clients, b.Clients))
	})
}

// RunOf is a finished sweep as a baseline run, its ratios to four places;
// load is the machine's load average as /proc/loadavg gives it ("" when
// unknown).
func RunOf(rep *Report, load string) BaselineRun {
	rs := RatiosOf(rep)
	for i := range rs {
		s := &rs[i].Spread
		s.Median, s.Min, s.Max = round4(s.Median), round4(s.Min), round4(s.Max)
	}
	return BaselineRun{
		Command: rep.Command, Made: rep.Started.UTC().Format("2006-01-02T15:04Z"),
		Machine: rep.Machine.String(), Backend: rep.Backend, Load: load, Ratios: rs,
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Add appends a run, keeping the last BaselineRuns.
func (b *Baseline) Add(r BaselineRun) {
	b.Format = BaselineFormat
	b.Runs = append(b.Runs, r)
	if len(b.Runs) > BaselineRuns {
		b.Runs = slices.Delete(b.Runs, 0, len(b.Runs)-BaselineRuns)
	}
}

// Ratios are the baseline's ratios: in each cell, the median over the
// runs that measured it of their medians, lowest and highest rounds, and
// their rounds added up.
func (b Baseline) Ratios() []Ratio {
	cells := map[ratioCell][]Spread{}
	var order []Ratio
	for _, run := range b.Runs {
		for _, r := range run.Ratios {
			if _, ok := cells[r.id()]; !ok {
				order = append(order, r)
			}
			cells[r.id()] = append(cells[r.id()], r.Spread)
		}
	}
	out := make([]Ratio, 0, len(order))
	for _, r := range order {
		ss := cells[r.id()]
		var meds, mins, maxs []float64
		rounds := 0
		for _, s := range ss {
			meds, mins, maxs = append(meds, s.Median), append(mins, s.Min), append(maxs, s.Max)
			rounds += s.Rounds
		}
		r.Spread = Spread{Median: median(meds), Min: median(mins), Max: median(maxs), Rounds: rounds}
		out = append(out, r)
	}
	sortRatios(out)
	return out
}

func median(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// WriteBaseline writes b as indented JSON, one ratio a line.
func WriteBaseline(path string, b Baseline) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"runs\": [\n", BaselineFormat)
	for i, run := range b.Runs {
		head := run
		head.Ratios = nil
		h, err := json.Marshal(head)
		if err != nil {
			return err
		}
		buf.WriteString("    ")
		buf.Write(bytes.TrimSuffix(h, []byte(`,"ratios":null}`)))
		buf.WriteString(",\n    \"ratios\": [\n")
		for j, r := range run.Ratios {
			line, err := json.Marshal(r)
			if err != nil {
				return err
			}
			buf.WriteString("      ")
			buf.Write(line)
			if j < len(run.Ratios)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString("    ]}")
		if i < len(b.Runs)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  ]\n}\n")
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ReadBaseline reads what --baseline names: a baseline file, an earlier
// run's bench.json, or the directory holding it (a baseline of one run).
func ReadBaseline(path string) (Baseline, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Baseline{}, err
	}
	file := path
	if fi.IsDir() {
		file = filepath.Join(path, FileJSON)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Baseline{}, err
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err == nil && b.Format == BaselineFormat {
		if len(b.Ratios()) == 0 {
			return Baseline{}, fmt.Errorf("%s has no ratios", file)
		}
		return b, nil
	}
	rep, err := ReadReport(file)
	if err != nil {
		return Baseline{}, err
	}
	if rep.Under != nil {
		return Baseline{}, fmt.Errorf("%s is a run under scenario %q, not a sweep", file, rep.Under.Scenario)
	}
	b.Add(RunOf(rep, ""))
	if len(b.Ratios()) == 0 {
		return Baseline{}, errors.New(file + " has no ratios (no design ran beside raw or its peer)")
	}
	return b, nil
}

// FallenCell is one cell of a Regression: the baseline's rounds and the
// run's.
type FallenCell struct {
	Clients    int        `json:"clients"`
	Contention Contention `json:"contention"`
	Was        Spread     `json:"was"`
	Now        Spread     `json:"now"`
}

// Regression is a ratio that fell beyond its noise in at least MinCells
// of its cells (Compare).
type Regression struct {
	Design  string       `json:"design"`
	Against string       `json:"against"`
	Nodes   int          `json:"nodes"`
	Cells   []FallenCell `json:"cells"`
	Of      int          `json:"of"` // the ratio's cells compared
}

func (g Regression) String() string {
	var cells []string
	for _, c := range g.Cells {
		cells = append(cells, fmt.Sprintf("at %d clients %s from %.2f (lowest round %.2f) to %.2f (highest round %.2f)",
			c.Clients, c.Contention, c.Was.Median, c.Was.Min, c.Now.Median, c.Now.Max))
	}
	return fmt.Sprintf("%s vs %s, %s, fell in %d of %d cells by more than %.0f%% beyond every round: %s",
		g.Design, g.Against, nodesText(g.Nodes), len(g.Cells), g.Of, Margin*100, strings.Join(cells, "; "))
}

// fell reports whether a cell's ratio fell beyond its noise: the run has
// at least two rounds and its highest lies more than Margin below the
// baseline's lowest.
func fell(was, now Spread) bool {
	return now.Rounds >= 2 && was.Rounds > 0 && now.Max*(1+Margin) < was.Min
}

// Compare holds every ratio of cur against the same ratio in base and
// returns the ratios that fell (see Margin and MinCells), and how many of
// cur's cells base had no counterpart for. It is a pure function of its
// inputs.
func Compare(base, cur []Ratio) (regs []Regression, unmatched int) {
	type group struct {
		design, against string
		nodes           int
	}
	was := map[ratioCell]Spread{}
	for _, r := range base {
		was[r.id()] = r.Spread
	}
	var order []group
	groups := map[group]*Regression{}
	for _, r := range cur {
		then, ok := was[r.id()]
		if !ok {
			unmatched++
			continue
		}
		k := group{r.Design, r.Against, r.Nodes}
		g := groups[k]
		if g == nil {
			g = &Regression{Design: r.Design, Against: r.Against, Nodes: r.Nodes}
			groups[k] = g
			order = append(order, k)
		}
		g.Of++
		if fell(then, r.Spread) {
			g.Cells = append(g.Cells, FallenCell{Clients: r.Clients, Contention: r.Contention, Was: then, Now: r.Spread})
		}
	}
	for _, k := range order {
		if g := groups[k]; len(g.Cells) > 0 && len(g.Cells) >= min(MinCells, g.Of) {
			regs = append(regs, *g)
		}
	}
	return regs, unmatched
}
