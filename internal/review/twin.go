package review

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/vocab"
)

// WriteMarkdown writes the page's Markdown twin, for a file in mdDir: the
// same sections, with images and links as paths relative to mdDir (into
// the matrix's run directories and the bench run), so it reads in an
// editor or a repository next to the results it describes.
func (r *Review) WriteMarkdown(w io.Writer, mdDir string) error {
	rel := func(path string) string {
		from, err1 := filepath.Abs(mdDir)
		to, err2 := filepath.Abs(path)
		if err1 != nil || err2 != nil {
			return filepath.ToSlash(path)
		}
		if p, err := filepath.Rel(from, to); err == nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(to)
	}
	m := r.Matrix
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Redis lock designs under failure: design review\n\n")
	p("**Machine:** %s · **matrix run:** %s UTC, wall %s · page generated %s UTC by locksim  \n%s.  \nLoad: %s.  \n",
		m.Machine, m.Started.UTC().Format("2006-01-02 15:04"), wall(m), r.Generated.UTC().Format("2006-01-02 15:04"), m.Shape(), m.Load)
	if len(r.CommonNotes) > 0 {
		p("In every run shown: %s.\n", strings.Join(r.CommonNotes, "; "))
	}
	p("\n**%s.** %d pair(s) came out unsafe and %d deadlocked; each is shown below with its witness and timeline.\n\n",
		m.Headline(), countVerdict(r.Findings, vocab.Unsafe), countVerdict(r.Findings, vocab.Deadlock))

	r.costMarkdown(p)

	p("## What breaks each design\n\n| design | pairs run | unsafe under | deadlocked under | not as expected |\n|---|---:|---|---|---|\n")
	for _, d := range r.byDesign() {
		p("| **%s** | %d | %s | %s | %s |\n", d.Algorithm, d.Ran, counted(d.Unsafe), counted(d.Deadlock), counted(d.Differ))
	}

	p("\n## Verdict matrix\n\n")
	anchors := map[string]bool{}
	for _, f := range r.Findings {
		anchors[f.Anchor()] = true
	}
	p("| scenario | %s |\n|---|%s\n", strings.Join(m.Algorithms, " | "), strings.Repeat("---|", len(m.Algorithms)))
	for _, s := range m.Scenarios {
		p("| %s |", s.Name)
		for _, a := range m.Algorithms {
			c := m.Cell(s.Name, a)
			if c == nil {
				p(" – |")
				continue
			}
			label := c.Label()
			if c.NotSafe() {
				label = "**" + label + "**"
			}
			if anchors[CellAnchor(*c)] {
				label = "[" + label + "](#" + CellAnchor(*c) + ")"
			}
			cell := strings.TrimSpace(label + " " + c.Agreement() + " " + c.Note())
			if c.Status == matrix.CellSkip || c.Status == matrix.CellError {
				cell += " (" + mdCellText(c.Reason) + ")"
			}
			p(" %s |", cell)
		}
		p("\n")
	}
	p("\nA cell: the verdict over the pair's runs, n/k runs that met the scenario's expectation (✓ all, ✗ not all). "+
		"Unsafe and deadlocked cells link to their finding below. Full matrix with links to every run: [%s](%s).\n",
		matrix.FileMD, rel(filepath.Join(m.Dir, matrix.FileMD)))
	if d := m.Differing(); len(d) > 0 {
		p("\n## Not as expected\n\n")
		for _, c := range d {
			exp := c.Expected
			if exp == "" {
				exp = "nothing (only safe passes)"
			}
			p("- **%s × %s**: expected %s; runs: %s\n", c.Scenario, c.Algorithm, exp, c.Tally())
		}
	}

	p("\n## Findings: unsafe and deadlocked pairs\n\n")
	if len(r.Findings) == 0 {
		p("None: every pair that ran was safe.\n")
	}
	for _, g := range r.byScenario() {
		p("### %s\n\n%s", g.Scenario.Name, mdCellText(g.Scenario.Doc))
		if g.Scenario.Source != "" {
			p(" *Source: %s.*", g.Scenario.Source)
		}
		p("\n\n")
		for _, f := range g.Findings {
			run := f.Cell.Runs[f.Run]
			p("<a id=\"%s\"></a>\n#### %s: %s\n\n%s · %s\n\n", f.Anchor(), f.Cell.Algorithm, run.Verdict, f.Expectation(), f.RunsLine())
			for _, line := range f.Summary() {
				p("- %s\n", line)
			}
			if checks := f.Checks(); len(checks) > 0 {
				var parts []string
				for _, c := range checks {
					s := c.Name + " " + string(c.Verdict)
					if c.Failed() {
						s = "**" + s + "**"
					}
					parts = append(parts, s)
				}
				p("- checks: %s\n", strings.Join(parts, " · "))
			}
			for _, n := range f.OwnNotes {
				p("- note: %s\n", n)
			}
			if len(f.Missing) > 0 {
				p("- missing: %s\n", strings.Join(f.Missing, "; "))
			}
			if f.Dir != "" {
				p("\n![timeline of %s × %s](%s)\n\n[run report](%s)\n\n", f.Cell.Scenario, f.Cell.Algorithm,
					rel(filepath.Join(f.Dir, report.FilePNG)), rel(filepath.Join(f.Dir, report.FileSummary)))
			}
		}
	}

	p("\n## Benchmark\n\n")
	if bn := r.Bench; bn != nil {
		p("Run shown: [%s](%s)", bn.Dir, rel(filepath.Join(bn.Dir, bench.FileSummary)))
		if bn.Why != "" {
			p(" (%s)", bn.Why)
		}
		p(".\n\n")
		if len(bn.Partial) > 0 {
			p("> **⚠ A partial lockbench run:** %s. Its figures cover only what it measured; the full sweep is lockbench without flags.\n\n",
				strings.Join(bn.Partial, "; "))
		}
		if bn.Note != "" {
			p("*%s*\n\n", bn.Note)
		}
		if bn.Report != nil {
			p("%s", bn.Report.Doc().Markdown(3, func(name string) string { return rel(filepath.Join(bn.Dir, name)) }))
		}
		for _, n := range bn.Unreferenced() {
			p("![%s](%s)\n\n", n, rel(filepath.Join(bn.Dir, n)))
		}
	} else {
		p("%s\n", r.NoBench)
	}
	p("\n## Scenarios\n\n")
	for _, s := range m.Scenarios {
		p("- **%s**: %s", s.Name, mdCellText(s.Doc))
		if s.Source != "" {
			p(" *Source: %s.*", s.Source)
		}
		p("\n")
	}
	p("\n## How to read a verdict\n\n" +
		"- **safe**: no two clients were inside the critical section together (exclusion), the lock never granted overlapping leases (claim), fencing tokens only grew, and after every fault healed a probe acquired the lock in time (liveness).\n" +
		"- **unsafe**: a safety check failed. exclusion unsafe with claim safe: the lock kept its promise but a client acted outside its lease; claim unsafe: the algorithm itself granted overlapping leases; fencing unsafe: the tokens did not protect the resource.\n" +
		"- **deadlock**: safe, but after every fault healed the lock could not be acquired within TTL + slack.\n" +
		"- **unknown**: the checker could not decide; never counted as a pass.\n" +
		"- **mixed**: the pair's runs (different seeds) disagreed.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCellText keeps free text on one line and out of table syntax.
func mdCellText(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// counted writes a list as "n: a, b", or nothing.
func counted(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%d: %s", len(names), strings.Join(names, ", "))
}

// costMarkdown writes the top of the page: the grid with its footnotes,
// the cost table and the sentences.
func (r *Review) costMarkdown(p func(string, ...any)) {
	g := r.Grid
	if len(r.Incomplete) > 0 {
		p("> **⚠ This review did not finish:** %s.\n\n", strings.Join(r.Incomplete, "; "))
	}
	p("## Safety by fault family\n\n| fault family (scenarios) | %s |\n|---|%s\n", strings.Join(g.Designs, " | "), strings.Repeat("---:|", len(g.Designs)))
	marks := r.noteMarks()
	for i, row := range g.Rows {
		mark := ""
		if marks[i] != "" {
			mark = " [" + marks[i] + "]"
		}
		p("| %s (%d)%s |", row.Family.Title(), len(row.Scenarios), mark)
		for _, c := range row.Cells {
			p(" %s |", c.Text())
		}
		p("\n")
	}
	p("\nEach cell: the scenarios of the family the design came through safe in every run (%d run(s) each), over those it ran; an unknown, mixed or not-played result is not safe; n/a: no scenario of the family applies to the design.\n\n", r.Matrix.Runs)
	for i, f := range r.footnotes() {
		p("%d. %s\n", i+1, f.Text)
	}
	p("\n## Cost against the raw Redis limit\n\n")
	if text, warn := r.BenchTop(); text != "" {
		if warn {
			p("> **%s**\n\n", text)
		} else {
			p("> %s\n\n", text)
		}
	}
	if r.Cost.Why != "" {
		p("> %s\n\n", r.Cost.Why)
	}
	c := r.Cost
	p("| design | nodes | safe in the %d fault scenarios all %d designs ran |", len(c.Common), len(r.Matrix.Algorithms))
	for _, k := range c.Clients {
		p(" cycles/s ÷ raw, %s |", clientsText(k))
	}
	for _, k := range c.Clients {
		p(" p99 acquire ÷ raw, %s |", clientsText(k))
	}
	p("\n|---|---:|---:|%s\n", strings.Repeat("---:|", 2*len(c.Clients)))
	for _, row := range c.Rows {
		nodes := "–"
		if row.Nodes > 0 {
			nodes = fmt.Sprint(row.Nodes)
		}
		p("| **%s** | %s | %s |", row.Algorithm, nodes, row.SafeText(c))
		for _, x := range append(append([]Ratio{}, row.Throughput...), row.P99...) {
			p(" %s |", x.Text())
		}
		p("\n")
	}
	p("\n%s\n\n", c.Caption(len(r.Matrix.Algorithms)))
	if len(c.Gaps) > 0 {
		p("> **⚠ The comparison is incomplete:** %s.\n\n", strings.Join(c.Gaps, "; "))
	}
	p("## Each design in one sentence\n\n")
	for _, s := range r.Sentences() {
		p("- %s\n", s)
	}
	if len(r.Explored) > 0 {
		p("\n## Random fault schedules\n\n")
		for _, s := range r.Explored {
			p("- %s\n", s)
		}
	}
	if len(r.Swept) > 0 {
		p("\n## Every single fault\n\n")
		for _, s := range r.Swept {
			p("- %s\n", s)
		}
	}
	p("\n")
}

func clientsText(k int) string {
	if k == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", k)
}
