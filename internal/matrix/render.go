package matrix

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/vocab"

	"github.com/locksim/locksim/internal/style"
	"github.com/locksim/locksim/scenarios"
)

// WriteJSON writes matrix.json.
func (m Matrix) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Label is the cell's verdict as the tables show it: the runs' verdict,
// mixed, skip, error, or "–" for a pair that does not apply.
func (c Cell) Label() string {
	switch c.Status {
	case CellRan:
		return c.Verdict
	case CellNA:
		return "–"
	}
	return string(c.Status)
}

// NotSafe reports whether the cell shows something other than safe: a
// verdict of its runs other than safe (unsafe, deadlock, unknown, mixed)
// or an error. The tables set exactly these in bold, so bold marks what a
// reader must look at; skip and – are not verdicts and stay plain.
func (c Cell) NotSafe() bool {
	return c.Status == CellError || c.Status == CellRan && c.Label() != string(vocab.Safe)
}

// Class is the cell's colour class in HTML (see internal/style.Matrix).
func (c Cell) Class() string {
	cls := "v-" + c.Label()
	switch c.Status {
	case CellNA:
		cls = "v-na"
	case CellRan:
		if !c.AsExpected {
			cls += " differ"
		} else if c.Note() == "not asserted" {
			cls += " loose"
		}
	}
	return cls
}

// Agreement is "n/k ✓" or "n/k ✗": how many of the cell's runs met the
// expectation, and whether all did. Empty when the cell did not run.
func (c Cell) Agreement() string {
	if c.Status != CellRan {
		return ""
	}
	mark := "✓"
	if !c.AsExpected {
		mark = "✗"
	}
	return fmt.Sprintf("%d/%d %s", c.Agreed, len(c.Runs), mark)
}

// Note qualifies a cell that ran: what was expected when it differs, or
// that nothing was asserted.
func (c Cell) Note() string {
	if c.Status != CellRan {
		return ""
	}
	e := c.Expectation()
	switch {
	case e.Verdict == "":
		return "nothing expected"
	case !c.AsExpected && c.unplayed() > 0:
		return fmt.Sprintf("not played (a needed fault never acted, or a requirement did not happen) in %d run(s)", c.unplayed())
	case !c.AsExpected && e.Verdict != vocab.Any && c.Verdict != string(e.Verdict):
		return "expected " + string(e.Verdict)
	case !c.AsExpected:
		// The verdict was right; a check was not.
		for _, r := range c.Runs {
			if r.Error != "" {
				continue
			}
			for _, miss := range e.Misses(r.Verdict, r.Checks) {
				if miss != scenarios.MissedVerdict {
					return "expected " + miss + " " + string(e.Checks[miss])
				}
			}
		}
		return "expected " + c.Expected
	case e.Verdict == vocab.Any:
		return "not asserted"
	}
	return ""
}

// unplayed counts the runs that did not play the scenario: a fault it
// needs never acted, or a requirement did not happen (the run's notes say
// which).
func (c Cell) unplayed() int {
	n := 0
	for _, r := range c.Runs {
		if len(r.Unplayed) > 0 {
			n++
		}
	}
	return n
}

// Tally counts the verdicts of the cell's runs: "safe ×1, unsafe ×1".
func (c Cell) Tally() string {
	counts := map[vocab.Verdict]int{}
	var order []vocab.Verdict
	for _, r := range c.Runs {
		v := r.Verdict
		if r.Error != "" {
			v = "error"
		}
		if counts[v] == 0 {
			order = append(order, v)
		}
		counts[v]++
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", v, counts[v]))
	}
	return strings.Join(parts, ", ")
}

// ShownRun is the run a cell's verdict links to: the first that did not
// meet the expectation, else the first. -1 when the cell did not run.
func (c Cell) ShownRun() int {
	for i, r := range c.Runs {
		if !r.AsExpected {
			return i
		}
	}
	if len(c.Runs) == 0 {
		return -1
	}
	return 0
}

// Title is the cell's tooltip: expectation, tally, reason.
func (c Cell) Title() string {
	s := c.Scenario + " × " + c.Algorithm
	if c.Expected != "" {
		s += "; expected " + c.Expected
	}
	if t := c.Tally(); t != "" {
		s += "; runs: " + t
	}
	if c.Reason != "" {
		s += "; " + c.Reason
	}
	return s
}

// footnotes numbers the distinct reasons of cells that did not run, in
// table order.
type footnotes struct {
	reasons []string
	cells   [][]string // "scenario × algo" per reason
}

func (f *footnotes) of(c Cell) int {
	// A pair that does not apply is common (a scenario about one
	// family) and self-explanatory; its reason is in the cell's title.
	if c.Status == CellRan || c.Status == CellNA || c.Reason == "" {
		return 0
	}
	reason := string(c.Status) + ": " + c.Reason
	i := slices.Index(f.reasons, reason)
	if i < 0 {
		f.reasons = append(f.reasons, reason)
		f.cells = append(f.cells, nil)
		i = len(f.reasons) - 1
	}
	f.cells[i] = append(f.cells[i], c.Scenario+" × "+c.Algorithm)
	return i + 1
}

// Headline is the matrix in one sentence.
func (m Matrix) Headline() string {
	t := m.Totals
	s := fmt.Sprintf("%d of %d pairs agreed with their expectation in all %d runs", t.Agreed, t.Cells, m.Runs)
	if m.Runs == 1 {
		s = fmt.Sprintf("%d of %d pairs agreed with their expectation", t.Agreed, t.Cells)
	}
	s += fmt.Sprintf("; %d differ", t.Differ)
	if t.Errors > 0 {
		s += fmt.Sprintf("; %d could not be run", t.Errors)
	}
	if t.Skipped > 0 {
		s += fmt.Sprintf("; %d skipped", t.Skipped)
	}
	if t.NA > 0 {
		s += fmt.Sprintf("; %d do not apply", t.NA)
	}
	if t.Elsewhere > 0 {
		s += fmt.Sprintf("; %d run by other shards", t.Elsewhere)
	}
	if m.Shard != "" {
		s = fmt.Sprintf("shard %s (its share of each pair's runs): ", m.Shard) + s
	}
	if m.Incomplete {
		s = fmt.Sprintf("INCOMPLETE, interrupted (%d pairs cut short, not verdicts): ", t.Interrupted) + s
	}
	return s
}

// Setup says how the matrix was run, in one line: its Shape, the machine,
// the start and the wall time.
func (m Matrix) Setup() string {
	return fmt.Sprintf("%s; %s; started %s UTC, wall %s", m.Shape(), m.Machine,
		m.Started.UTC().Format("2006-01-02 15:04:05"), (time.Duration(m.WallMS) * time.Millisecond).Round(100*time.Millisecond))
}

// Shape says what the matrix ran: rows, columns, runs, seeds, parallelism
// and backend.
func (m Matrix) Shape() string {
	backend := "each scenario's own backend"
	if m.Backend != "" {
		backend = "backend " + m.Backend
	}
	if m.Server != "" {
		backend += ", server " + m.Server
	}
	seed := "the scenario's seed"
	if m.Seed != nil {
		seed = fmt.Sprintf("%d", *m.Seed)
	}
	seeds := seed
	if m.Runs > 1 {
		seeds = fmt.Sprintf("%s + 0…%d", seed, m.Runs-1)
	}
	return fmt.Sprintf("%d scenario(s) × %d design(s), %d run(s) per pair (seeds: %s), %d at a time, %s",
		len(m.Scenarios), len(m.Algorithms), m.Runs, seeds, m.Parallel, backend)
}

// Stamp is the matrix's start as its directory names it.
func (m Matrix) Stamp() string { return artifact.Stamp(m.Started) }

// rows returns the cells row by row in Scenarios x Algorithms order.
func (m Matrix) rows() [][]Cell {
	var out [][]Cell
	for _, s := range m.Scenarios {
		row := make([]Cell, 0, len(m.Algorithms))
		for _, a := range m.Algorithms {
			if c := m.Cell(s.Name, a); c != nil {
				row = append(row, *c)
			} else {
				row = append(row, Cell{Scenario: s.Name, Algorithm: a, Status: CellNA})
			}
		}
		out = append(out, row)
	}
	return out
}

// Differing are the cells that ran and did not meet their expectation in
// every run, and the cells that failed to run.
func (m Matrix) Differing() []Cell {
	var out []Cell
	for _, c := range m.Cells {
		if c.Status == CellError || (c.Status == CellRan && !c.AsExpected) {
			out = append(out, c)
		}
	}
	return out
}

// WriteMarkdown writes matrix.md: the table, what differs, what did not run.
func (m Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# locksim matrix %s\n\n", m.Stamp())
	p("%s.\nLoad: %s.\n\n**%s.**\n\n", m.Setup(), m.Load, m.Headline())
	p("| scenario | %s |\n|---|%s\n", strings.Join(m.Algorithms, " | "), strings.Repeat("---|", len(m.Algorithms)))
	var notes footnotes
	for _, row := range m.rows() {
		p("| %s |", row[0].Scenario)
		for _, c := range row {
			p(" %s |", mdCell(c, &notes))
		}
		p("\n")
	}
	p("\nA cell: the verdict (linked to a run's report: the first run that did not meet the expectation, else the first), " +
		"then n/k: how many of the k runs met the expectation; ✓ all did, ✗ not all. " +
		"\"not asserted\": any verdict but unknown passes. [n]: why a pair was not run. –: the scenario does not apply to the design.\n")

	if d := m.Differing(); len(d) > 0 {
		p("\n## Differ from their expectation\n\n")
		for _, c := range d {
			p("- **%s × %s**: expected %s; %s\n", c.Scenario, c.Algorithm, orNothing(c.Expected), runsMarkdown(c))
		}
	}
	if len(notes.reasons) > 0 {
		p("\n## Not run\n\n")
		for i, r := range notes.reasons {
			p("- [%d] %s — %s\n", i+1, mdEscape(r), strings.Join(notes.cells[i], ", "))
		}
	}
	p("\n## Scenarios\n\n")
	for _, s := range m.Scenarios {
		p("- **%s**: %s", s.Name, mdEscape(oneLine(s.Doc)))
		if s.Source != "" {
			p(" *(%s)*", mdEscape(s.Source))
		}
		if s.File != "" {
			p(" [file: %s]", s.File)
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(c Cell, notes *footnotes) string {
	if n := notes.of(c); n > 0 {
		return fmt.Sprintf("%s [%d]", c.Label(), n)
	}
	if c.Status != CellRan {
		return c.Label()
	}
	label := c.Label()
	if c.NotSafe() {
		label = "**" + label + "**"
	}
	if i := c.ShownRun(); i >= 0 && c.Runs[i].Dir != "" {
		label = fmt.Sprintf("[%s](%s/)", label, c.Runs[i].Dir)
	}
	s := label + " " + c.Agreement()
	if n := c.Note(); n != "" {
		s += " " + n
	}
	return s
}

func runsMarkdown(c Cell) string {
	var parts []string
	for i, r := range c.Runs {
		got := string(r.Verdict)
		if r.Error != "" {
			got = "error: " + oneLine(r.Error)
		} else if len(r.Checks) > 0 {
			got += " (" + checksText(r.Checks) + ")"
		}
		mark := "✓"
		if !r.AsExpected {
			mark = "✗"
		}
		s := fmt.Sprintf("run %d (seed %d) %s %s", i+1, r.Seed, mdEscape(got), mark)
		if r.Dir != "" {
			s += fmt.Sprintf(" [report](%s/)", r.Dir)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func checksText(checks map[string]vocab.Verdict) string {
	var parts []string
	for _, name := range vocab.Checks() {
		if v, ok := checks[name]; ok {
			parts = append(parts, name+" "+string(v))
		}
	}
	return strings.Join(parts, ", ")
}

func orNothing(s string) string {
	if s == "" {
		return "nothing (only safe passes)"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdEscape keeps free text from breaking a Markdown table or list.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`).Replace(s)
}

// HTMLTable renders the matrix table. cellHref, when not nil, links each
// cell's verdict ("" for no link); runLinks adds a small link to each
// run's directory.
func (m Matrix) HTMLTable(cellHref func(Cell) string, runLinks bool) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	b.WriteString(`<table class="matrix"><thead><tr><th>scenario</th>`)
	for _, a := range m.Algorithms {
		fmt.Fprintf(&b, `<th>%s</th>`, esc(a))
	}
	b.WriteString("</tr></thead><tbody>\n")
	docs := map[string]string{}
	for _, s := range m.Scenarios {
		docs[s.Name] = oneLine(s.Doc)
	}
	var notes footnotes
	for _, row := range m.rows() {
		name := row[0].Scenario
		fmt.Fprintf(&b, `<tr><th class="scenario" title="%s">%s</th>`, esc(docs[name]), esc(name))
		for _, c := range row {
			fmt.Fprintf(&b, `<td class="%s" title="%s">`, c.Class(), esc(c.Title()))
			label := esc(c.Label())
			verdict := "verdict"
			if c.NotSafe() {
				verdict += " notsafe"
			}
			if n := notes.of(c); n > 0 {
				label += fmt.Sprintf("<sup>%d</sup>", n)
			}
			href := ""
			if cellHref != nil {
				href = cellHref(c)
			}
			if href != "" {
				fmt.Fprintf(&b, `<a class="cell" href="%s"><div class="%s">%s</div></a>`, esc(href), verdict, label)
			} else {
				fmt.Fprintf(&b, `<div class="%s">%s</div>`, verdict, label)
			}
			if a := c.Agreement(); a != "" {
				fmt.Fprintf(&b, `<div class="agree">%s</div>`, esc(a))
			}
			if n := c.Note(); n != "" {
				fmt.Fprintf(&b, `<div class="note">%s</div>`, esc(n))
			}
			if runLinks && len(c.Runs) > 0 {
				b.WriteString(`<div class="runs">`)
				for i, r := range c.Runs {
					if r.Dir == "" {
						continue
					}
					fmt.Fprintf(&b, `<a href="%s/" title="run %d, seed %d: %s">%d</a>`, esc(r.Dir), i+1, r.Seed, esc(string(r.Verdict)), i+1)
				}
				b.WriteString(`</div>`)
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
	if len(notes.reasons) > 0 {
		b.WriteString(`<ol class="notrun">`)
		for i, r := range notes.reasons {
			fmt.Fprintf(&b, `<li>%s <span class="cells">(%s)</span></li>`, esc(r), esc(strings.Join(notes.cells[i], ", ")))
		}
		b.WriteString("</ol>\n")
	}
	return template.HTML(b.String())
}

// Legend is the colour key, as HTML.
const Legend = template.HTML(`<p class="legend"><span class="v-safe">safe</span><span class="v-unsafe">unsafe</span>` +
	`<span class="v-deadlock">deadlock</span><span class="v-unknown">unknown</span><span class="v-mixed">mixed: runs disagree</span>` +
	`<span class="v-safe loose">hatched: not asserted</span><span class="v-skip">skip: not run, see note</span><span class="v-na">– does not apply</span><span class="v-error">error: locksim failed</span>` +
	`<span class="v-safe differ" style="outline: 3px solid #c00; outline-offset: -3px;">✗ did not meet its expectation</span></p>`)

var htmlPage = template.Must(template.New("matrix").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>locksim matrix {{.M.Stamp}}</title>
<style>
body { margin: 20px; }
h1 { font-size: 20px; margin-bottom: 4px; } h2 { font-size: 16px; margin-top: 24px; }
p.setup { color: #555; font-size: 13px; margin-top: 0; }
p.headline { font-size: 15px; font-weight: 600; }
p.help { color: #555; font-size: 12px; margin-top: 8px; max-width: 1100px; }
ul.differ, dl.scenarios { font-size: 12px; }
dl.scenarios dt { font-weight: 600; margin-top: 6px; } dl.scenarios dd { margin-left: 16px; color: #333; }
{{.CSS}}
</style></head>
<body>
<h1>locksim matrix {{.M.Stamp}}</h1>
<p class="setup">{{.M.Setup}}.<br/>Load: {{.M.Load}}.</p>
<p class="headline">{{.M.Headline}}.</p>
{{.Legend}}
{{.Table}}
<p class="help">A cell: the verdict (linked to a run's report: the first run that did not meet the expectation, else the first),
n/k: how many of the k runs met the expectation (✓ all, ✗ not all), and the runs by number. "not asserted": any verdict but unknown passes.
Superscripts refer to the list of pairs not run below the table; – marks a scenario that names the designs it applies to, and not this one.
Hover a cell for its expectation and the runs' verdicts.</p>
{{with .Differ}}<h2>Differ from their expectation</h2>
<ul class="differ">{{range .}}<li><b>{{.Scenario}} × {{.Algorithm}}</b>: expected {{if .Expected}}{{.Expected}}{{else}}nothing (only safe passes){{end}}; runs: {{.Tally}}{{if .Reason}}; {{.Reason}}{{end}}</li>{{end}}</ul>{{end}}
<h2>Scenarios</h2>
<dl class="scenarios">{{range .M.Scenarios}}<dt>{{.Name}}{{if .File}} <small>({{.File}})</small>{{end}}</dt><dd>{{.Doc}}{{if .Source}} <i>({{.Source}})</i>{{end}}</dd>{{end}}</dl>
</body></html>
`))

// WriteHTML writes matrix.html: the table with links into the run
// directories, what differs, and the scenarios' docs.
func (m Matrix) WriteHTML(w io.Writer) error {
	href := func(c Cell) string {
		if i := c.ShownRun(); i >= 0 && c.Runs[i].Dir != "" {
			return c.Runs[i].Dir + "/"
		}
		return ""
	}
	return htmlPage.Execute(w, map[string]any{
		"M":      m,
		"CSS":    template.CSS(style.Base + style.Matrix),
		"Legend": Legend,
		"Table":  m.HTMLTable(href, true),
		"Differ": m.Differing(),
	})
}
