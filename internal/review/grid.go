package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// Grid is the design x fault-family comparison at the top of the page:
// for every family the matrix has a scenario of, what share of them each
// design came through safe in every run.
type Grid struct {
	Designs []string
	Rows    []FamilyRow
	// Unrun are the matrix's scenarios none of its designs ran (each
	// skipped or not applicable): they are in no row.
	Unrun []string
}

// FamilyRow is one family.
type FamilyRow struct {
	Family scenarios.Family
	// Scenarios are the matrix's scenarios of the family that at least
	// one design ran, in matrix order.
	Scenarios []string
	Cells     []GridCell // one per design, in Grid.Designs order
	// Only lists the scenarios of the family that some designs of the
	// matrix did not run (skipped or not applicable), each with the
	// designs that ran it, read off the matrix's cells.
	Only []Scope
}

// Scope is a scenario and the designs of the matrix that ran it.
type Scope struct {
	Scenario string
	Designs  []string
}

// GridCell is one design's record in one family.
type GridCell struct {
	Design string
	// Ran counts the family's scenarios the design ran (skipped and
	// not-applicable pairs are not counted; a pair locksim failed to run
	// is); Safe those it came through safe in every run. An unknown, a
	// mixed result or a run that did not play is not safe.
	Safe, Ran int
	// Failed are the scenarios it did not come through, in matrix order;
	// Held those it did.
	Failed []Failure
	Held   []string
}

// Failure is a scenario a design did not come through, and how.
type Failure struct {
	Scenario string
	// Outcome is what went wrong, as a phrase (outcomeOf).
	Outcome string
}

// Text is the cell as the page prints it: "3/4", or "n/a" when the design
// ran none of the family's scenarios.
func (c GridCell) Text() string {
	if c.Ran == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d", c.Safe, c.Ran)
}

// Class is the cell's colour class on the page: all safe, none, some, n/a.
func (c GridCell) Class() string {
	switch {
	case c.Ran == 0:
		return "na"
	case c.Safe == c.Ran:
		return "all"
	case c.Safe == 0:
		return "none"
	}
	return "some"
}

// familyOf is a matrix row's family: the one matrix.json records, else
// the scenario's as the catalogue gives it (a matrix.json whose rows carry
// no family); a scenario that cannot be found counts as a control only
// when nothing says otherwise.
func familyOf(row matrix.Row) scenarios.Family {
	if row.Family != "" {
		return row.Family
	}
	name := row.Name
	if row.File != "" {
		name = row.File
	}
	if s, err := scenarios.Lookup(name); err == nil {
		return scenarios.FamilyOf(s)
	}
	return scenarios.FamilyControl
}

// ran reports whether the pair counts in a denominator.
func ran(c *matrix.Cell) bool {
	return c != nil && (c.Status == matrix.CellRan || c.Status == matrix.CellError)
}

// GridOf builds the grid of a matrix: families in scenarios.Families
// order, each present when the matrix has one of its scenarios.
func GridOf(m matrix.Matrix) Grid {
	g := Grid{Designs: m.Algorithms}
	byFamily := map[scenarios.Family][]string{}
	for _, row := range m.Scenarios {
		if !slices.ContainsFunc(m.Algorithms, func(d string) bool { return ran(m.Cell(row.Name, d)) }) {
			g.Unrun = append(g.Unrun, row.Name)
			continue
		}
		f := familyOf(row)
		byFamily[f] = append(byFamily[f], row.Name)
	}
	for _, f := range scenarios.Families() {
		names := byFamily[f]
		if len(names) == 0 {
			continue
		}
		row := FamilyRow{Family: f, Scenarios: names}
		for _, d := range m.Algorithms {
			cell := GridCell{Design: d}
			for _, s := range names {
				c := m.Cell(s, d)
				if !ran(c) {
					continue
				}
				cell.Ran++
				if survived(*c) {
					cell.Safe++
					cell.Held = append(cell.Held, s)
				} else {
					cell.Failed = append(cell.Failed, Failure{Scenario: s, Outcome: outcomeOf(*c)})
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		for _, s := range names {
			var who []string
			for _, d := range m.Algorithms {
				if ran(m.Cell(s, d)) {
					who = append(who, d)
				}
			}
			if len(who) < len(m.Algorithms) {
				row.Only = append(row.Only, Scope{Scenario: s, Designs: who})
			}
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// survived reports whether every run of a cell that ran was safe.
func survived(c matrix.Cell) bool {
	if c.Status != matrix.CellRan || len(c.Runs) == 0 {
		return false
	}
	for _, r := range c.Runs {
		if r.Verdict != vocab.Safe {
			return false
		}
	}
	return true
}

// Outcome phrases, the verbs of a design's sentence.
const (
	outOverlap   = "grants overlapping leases"
	outExclusion = "loses mutual exclusion"
	outFencing   = "lets a stale token through"
	outUnsafe    = "is unsafe"
	outDeadlock  = "deadlocks"
	outUndecided = "is not shown safe"
)

// outcomeRank orders the outcomes, worst first.
var outcomeRank = []string{outOverlap, outExclusion, outFencing, outUnsafe, outDeadlock, outUndecided}

// outcomeOf says how a cell fell short, from its worst run: an unsafe run
// by its failed check (claim, the lock's own promise, before exclusion,
// before fencing), else a deadlock, else undecided (unknown, not played,
// or locksim failed to run it).
func outcomeOf(c matrix.Cell) string {
	worst := ""
	for _, r := range c.Runs {
		o := outUndecided
		switch r.Verdict {
		case vocab.Safe:
			continue
		case vocab.Unsafe:
			switch {
			case r.Checks[vocab.CheckClaim] == vocab.Unsafe:
				o = outOverlap
			case r.Checks[vocab.CheckExclusion] == vocab.Unsafe:
				o = outExclusion
			case r.Checks[vocab.CheckFencing] == vocab.Unsafe:
				o = outFencing
			default:
				o = outUnsafe
			}
		case vocab.Deadlock:
			o = outDeadlock
		}
		if worst == "" || slices.Index(outcomeRank, o) < slices.Index(outcomeRank, worst) {
			worst = o
		}
	}
	if worst == "" {
		return outUndecided // an error cell, or one without runs
	}
	return worst
}

// Sentence is the design's verdict in one sentence a reviewer can read
// out, built from the grid: each way it failed with the families and the
// scenarios where it did (the grid says how many of each family it came
// through), the families it came through whole, and those that do not
// apply to it.
func (g Grid) Sentence(design string) string {
	i := slices.Index(g.Designs, design)
	if i < 0 {
		return design + ": not in the matrix."
	}
	var safe, na []string
	for _, row := range g.Rows {
		switch c := row.Cells[i]; {
		case c.Ran == 0:
			na = append(na, row.Family.Title())
		case c.Safe == c.Ran:
			safe = append(safe, row.Family.Title())
		}
	}
	var clauses []string
	for _, o := range outcomeRank {
		var parts []string
		for _, row := range g.Rows {
			var names []string
			for _, f := range row.Cells[i].Failed {
				if f.Outcome == o {
					names = append(names, f.Scenario)
				}
			}
			if len(names) > 0 {
				parts = append(parts, fmt.Sprintf("%s (%s)", row.Family.Title(), strings.Join(names, ", ")))
			}
		}
		if len(parts) > 0 {
			clauses = append(clauses, o+" under "+andList(parts))
		}
	}
	if len(safe) > 0 {
		s := "safe under " + andList(safe)
		if len(clauses) == 0 {
			s = "came through every scenario it ran: " + andList(safe)
		}
		clauses = append(clauses, s)
	}
	if len(na) > 0 {
		clauses = append(clauses, "not tested under "+andList(na)+" (no scenario of it applies)")
	}
	if len(clauses) == 0 {
		return design + ": ran no scenario."
	}
	return design + ": " + strings.Join(clauses, "; ") + "."
}

// andList joins "a", "a and b", "a, b and c".
func andList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// Footnote says which designs a family applies to, when not every design
// of the matrix ran every one of its scenarios: the designs that ran any,
// and the scenarios only some designs ran, grouped by those designs. ""
// when every design ran every scenario of the family.
func (r FamilyRow) Footnote(all []string) string {
	if len(r.Only) == 0 {
		return ""
	}
	var applies []string
	for i, c := range r.Cells {
		if c.Ran > 0 {
			applies = append(applies, all[i])
		}
	}
	if len(r.Only) == len(r.Scenarios) && len(applies) < len(all) &&
		!slices.ContainsFunc(r.Only, func(s Scope) bool { return !slices.Equal(s.Designs, applies) }) {
		return fmt.Sprintf("%s: %s only (every scenario of it).", r.Family.Title(), andList(applies))
	}
	var groups []string
	byWho := map[string][]string{}
	for _, s := range r.Only {
		who := andList(s.Designs)
		if _, ok := byWho[who]; !ok {
			groups = append(groups, who)
		}
		byWho[who] = append(byWho[who], s.Scenario)
	}
	var parts []string
	for _, who := range groups {
		parts = append(parts, fmt.Sprintf("%s only: %s", who, strings.Join(byWho[who], ", ")))
	}
	return fmt.Sprintf("%s: %s.", r.Family.Title(), strings.Join(parts, "; "))
}

// CommonSet is the fault scenarios (not controls) that every one of
// designs ran: the set over which their safety can be compared.
func (g Grid) CommonSet(m matrix.Matrix, designs []string) []string {
	var out []string
	for _, row := range g.Rows {
		if row.Family == scenarios.FamilyControl {
			continue
		}
		for _, s := range row.Scenarios {
			all := len(designs) > 0
			for _, d := range designs {
				all = all && m.Cell(s, d) != nil && m.Cell(s, d).Status == matrix.CellRan
			}
			if all {
				out = append(out, s)
			}
		}
	}
	return out
}

// SafeOver counts the scenarios of set the design came through safe in
// every run.
func SafeOver(m matrix.Matrix, set []string, design string) int {
	n := 0
	for _, s := range set {
		if c := m.Cell(s, design); c != nil && survived(*c) {
			n++
		}
	}
	return n
}

// footnote is one family's footnote on the page.
type footnote struct {
	Family scenarios.Family
	Text   string
}

// footnotes are the grid's footnotes, one per family that applies to only
// some designs or has scenarios that do, in row order.
func (r *Review) footnotes() []footnote {
	var out []footnote
	for _, row := range r.Grid.Rows {
		if t := row.Footnote(r.Grid.Designs); t != "" {
			out = append(out, footnote{row.Family, t})
		}
	}
	return out
}

// noteMarks are the footnote numbers of the grid's rows ("" for a row
// without one).
func (r *Review) noteMarks() []string {
	var out []string
	n := 0
	for _, row := range r.Grid.Rows {
		mark := ""
		if row.Footnote(r.Grid.Designs) != "" {
			n++
			mark = fmt.Sprint(n)
		}
		out = append(out, mark)
	}
	return out
}
