// Package review builds the design-review page: one self-contained HTML
// file (images inlined, CSS inline, nothing fetched) and its Markdown twin,
// from a verdict matrix (matrix.Run's directory) and, when given,
// a lockbench run. It only reads what earlier stages wrote: matrix.json,
// each run's verdict.json, summary.md and timeline.png, and lockbench's
// bench.json (told in the words of its summary.md, bench.Report.Doc) and
// charts.
package review

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/vocab"
)

// Review is everything the page shows.
type Review struct {
	Generated time.Time
	Matrix    matrix.Matrix
	// Findings are the unsafe and deadlocked pairs, in matrix order.
	Findings []Finding
	Bench    *Bench // nil without a bench run
	// NoBench says why there is no bench run (BenchChoice.Why).
	NoBench string
	// CommonNotes are the notes every finding's run has (an emulation,
	// the Lua interpreter), said once rather than under each finding.
	CommonNotes []string
	// Grid is the design x fault-family comparison; Cost the cost table
	// beside the safety over the scenarios every design ran.
	Grid Grid
	Cost Cost
	// OwnSweep: the bench run was measured for this page (locksim
	// review), so it is narrower than lockbench's full sweep by design.
	OwnSweep bool
	// Explored are lines about an exploration of random fault schedules
	// per design, when the review ran one.
	Explored []string
	// Swept are the statements of a sweep of every single-fault schedule
	// per design (explore.Sweep.Statement), when the review ran one.
	Swept []string
	// Incomplete says what the review that wrote the page could not
	// finish; the page says it at the top.
	Incomplete []string
}

// Finding is one pair with a run that came out unsafe or deadlocked, told
// from that run's files.
type Finding struct {
	Cell matrix.Cell
	// Run is the index of the run shown: the first unsafe or deadlocked one.
	Run int
	// Dir is the run's directory as found on disk ("" when the matrix
	// does not name one).
	Dir     string
	Verdict report.VerdictFile
	// Witnesses are verdict.json's witnesses of the failed (or covered)
	// checks, in check order, each in a few short lines; the page shows
	// Shown() and folds the rest.
	Witnesses []WitnessLine
	// Timeline is timeline.png; nil when missing.
	Timeline []byte
	// Missing says what could not be read; the finding is still shown.
	Missing []string
	// OwnNotes are the run's notes less the review's CommonNotes.
	OwnNotes []string
}

// Anchor is the finding's id in the page.
func (f Finding) Anchor() string { return CellAnchor(f.Cell) }

// CellAnchor is the page id of a cell's finding.
func CellAnchor(c matrix.Cell) string {
	return "f-" + anchorSafe(c.Scenario) + "--" + anchorSafe(c.Algorithm)
}

func anchorSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Load reads the matrix in matrixDir (a matrix directory or a link to one)
// and the lockbench run b chose, if any.
func Load(matrixDir string, b BenchChoice) (*Review, error) {
	m, err := matrix.Read(matrixDir)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	if m.Shard != "" {
		// A shard holds a share of each pair's runs: its grid would say
		// less than the matrix does.
		return nil, fmt.Errorf("matrix %s is shard %s of a matrix: join the shards first (locksim matrix merge)", matrixDir, m.Shard)
	}
	r := &Review{Generated: time.Now(), Matrix: m}
	if m.Incomplete {
		n := 0
		for _, c := range m.Cells {
			if c.Status == matrix.CellInterrupted {
				n++
			}
		}
		r.Incomplete = append(r.Incomplete, fmt.Sprintf("the matrix was interrupted: %d pair(s) did not finish and count nowhere", n))
	}
	for _, c := range m.Cells {
		if i := findingRun(c); i >= 0 {
			r.Findings = append(r.Findings, loadFinding(m.Dir, c, i))
		}
	}
	r.splitNotes()
	if b.Dir == "" {
		r.NoBench = b.Why
		if r.NoBench == "" {
			r.NoBench = "No lockbench run was given. " + runBench
		}
		r.addCost()
		return r, nil
	}
	if r.Bench, err = LoadBench(b.Dir); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	r.Bench.Why = b.Why
	r.OwnSweep = b.OwnSweep
	r.addCost()
	return r, nil
}

// addCost builds the grid and the cost table.
func (r *Review) addCost() {
	var rep *bench.Report
	if r.Bench != nil {
		rep = r.Bench.Report
	}
	r.Grid = GridOf(r.Matrix)
	r.Cost = CostOf(r.Matrix, r.Grid, rep)
}

// Sentences are each design's verdict in one sentence (Grid.Sentence), in
// matrix order.
func (r *Review) Sentences() []string {
	var out []string
	for _, d := range r.Matrix.Algorithms {
		out = append(out, r.Grid.Sentence(d))
	}
	return out
}

// BenchTop is what the top of the page says about the bench run next to
// the cost table: why there is none, how a run measured for this page was
// measured, or that a run is partial and how. Warn marks the last.
func (r *Review) BenchTop() (text string, warn bool) {
	switch b := r.Bench; {
	case b == nil:
		return r.NoBench, true
	case len(b.Partial) == 0:
		return "", false
	case r.OwnSweep && b.Report != nil:
		return "Measured for this review: " + sweepText(b.Report) + ". The bench section below has the run's full tables.", false
	}
	return "⚠ A partial lockbench run: " + strings.Join(r.Bench.Partial, "; ") +
		". Its figures cover only what it measured; the full sweep is lockbench without flags.", true
}

// splitNotes finds the notes common to every finding.
func (r *Review) splitNotes() {
	if len(r.Findings) == 0 {
		return
	}
	for _, n := range r.Findings[0].Verdict.Notes {
		common := len(r.Findings) > 1
		for _, f := range r.Findings[1:] {
			common = common && slices.Contains(f.Verdict.Notes, n)
		}
		if common && !slices.Contains(r.CommonNotes, n) {
			r.CommonNotes = append(r.CommonNotes, n)
		}
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		f.OwnNotes = nil
		for _, n := range f.Verdict.Notes {
			if !slices.Contains(r.CommonNotes, n) {
				f.OwnNotes = append(f.OwnNotes, n)
			}
		}
	}
}

// findingRun is the first run of c that was unsafe or deadlocked, or -1.
func findingRun(c matrix.Cell) int {
	for i, run := range c.Runs {
		if run.Verdict == vocab.Unsafe || run.Verdict == vocab.Deadlock {
			return i
		}
	}
	return -1
}

func loadFinding(matrixDir string, c matrix.Cell, i int) Finding {
	f := Finding{Cell: c, Run: i}
	rel := c.Runs[i].Dir
	if rel == "" {
		f.Missing = append(f.Missing, "the matrix names no run directory")
		return f
	}
	f.Dir = filepath.Join(matrixDir, filepath.FromSlash(rel))
	v, err := report.ReadVerdict(filepath.Join(f.Dir, report.FileVerdict))
	if err != nil {
		f.Missing = append(f.Missing, report.FileVerdict+": "+err.Error())
	}
	f.Verdict = v
	f.Witnesses = witnessLines(v)
	if png, err := os.ReadFile(filepath.Join(f.Dir, report.FilePNG)); err == nil {
		f.Timeline = png
	} else {
		f.Missing = append(f.Missing, report.FilePNG+": "+err.Error())
	}
	return f
}

// Checks are the run's checks in the checker's order.
func (f Finding) Checks() []NamedCheck {
	var out []NamedCheck
	for _, name := range vocab.Checks() {
		if c, ok := f.Verdict.Checks[name]; ok {
			out = append(out, NamedCheck{name, c})
		}
	}
	return out
}

// NamedCheck is a check of verdict.json with its name.
type NamedCheck struct {
	Name string
	report.Check
}

// Failed reports whether the check is what made the run unsafe or
// deadlocked.
func (c NamedCheck) Failed() bool {
	return c.Verdict == vocab.Unsafe || c.Verdict == vocab.Deadlock
}

// Summary says in words what the finding's run showed, for a reader of
// the Markdown twin: the witnesses the page shows (each with its overlap
// and faults, on one line) and how many more there are, or, for a
// deadlock, the liveness detail.
func (f Finding) Summary() []string {
	var out []string
	for _, w := range f.Shown() {
		s := fmt.Sprintf("**%s**", w.Check)
		if w.Key != "" {
			s += fmt.Sprintf(" (key `%s`)", w.Key)
		}
		s += ": " + w.What
		if w.Overlap != "" {
			s += "; " + w.Overlap
		}
		out = append(out, s+"; "+w.FaultsLine())
	}
	if n := len(f.Folded()); n > 0 {
		out = append(out, fmt.Sprintf("… %d more witness(es) in the run's %s", n, report.FileVerdict))
	}
	if len(out) > 0 {
		return out
	}
	for _, c := range f.Checks() {
		if c.Failed() {
			out = append(out, fmt.Sprintf("**%s** %s: %s", c.Name, c.Verdict, c.Detail))
		}
	}
	return out
}

// RunsLine says how the cell's runs came out, and which one is shown.
func (f Finding) RunsLine() string {
	c := f.Cell
	s := fmt.Sprintf("runs: %s; %d of %d met the expectation", c.Tally(), c.Agreed, len(c.Runs))
	if len(c.Runs) > 1 {
		s += fmt.Sprintf("; shown: run %d (seed %d)", f.Run+1, c.Runs[f.Run].Seed)
	} else if len(c.Runs) == 1 {
		s += fmt.Sprintf(" (seed %d)", c.Runs[0].Seed)
	}
	return s
}

// Expectation says what was expected and whether the cell met it.
func (f Finding) Expectation() string {
	c := f.Cell
	exp := "nothing expected (only safe passes)"
	switch {
	case c.Expectation().Verdict == vocab.Any:
		exp = "not asserted (" + c.Expected + ")"
	case c.Expected != "":
		exp = "expected " + c.Expected
	}
	if c.AsExpected {
		return exp + " ✓"
	}
	return exp + " ✗ NOT AS EXPECTED"
}

// scenario returns the matrix row of a scenario.
func (r *Review) scenario(name string) matrix.Row {
	for _, s := range r.Matrix.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return matrix.Row{Name: name}
}

// byScenario groups the findings by scenario, in matrix order.
func (r *Review) byScenario() []scenarioFindings {
	var out []scenarioFindings
	for _, f := range r.Findings {
		if len(out) == 0 || out[len(out)-1].Scenario.Name != f.Cell.Scenario {
			out = append(out, scenarioFindings{Scenario: r.scenario(f.Cell.Scenario)})
		}
		out[len(out)-1].Findings = append(out[len(out)-1].Findings, f)
	}
	return out
}

type scenarioFindings struct {
	Scenario matrix.Row
	Findings []Finding
}

// designRow is one design's line in the by-design summary.
type designRow struct {
	Algorithm string
	Unsafe    []string // scenarios
	Deadlock  []string
	Differ    []string
	Ran       int
}

// byDesign says, per design, where it broke.
func (r *Review) byDesign() []designRow {
	var out []designRow
	for _, a := range r.Matrix.Algorithms {
		row := designRow{Algorithm: a}
		for _, c := range r.Matrix.Cells {
			if c.Algorithm != a || c.Status == matrix.CellSkip || c.Status == matrix.CellNA || c.Status == matrix.CellInterrupted {
				continue
			}
			row.Ran++
			if !c.AsExpected {
				row.Differ = append(row.Differ, c.Scenario)
			}
			switch i := findingRun(c); {
			case i < 0:
			case c.Runs[i].Verdict == vocab.Unsafe:
				row.Unsafe = append(row.Unsafe, c.Scenario)
			default:
				row.Deadlock = append(row.Deadlock, c.Scenario)
			}
		}
		out = append(out, row)
	}
	return out
}
