package review

import (
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/locksim/locksim/bench"
)

// Bench is a lockbench run as the page shows it: its data (bench.json,
// told in the words summary.md uses, bench.Report.Doc) and its charts.
type Bench struct {
	Dir string
	// Report is bench.json; nil when the run has none or it cannot be
	// read, and then Note says why and the page shows the charts alone.
	Report *bench.Report
	Note   string
	// Charts are the run's PNG files by name; Order lists them in the
	// order the summary shows them, then the rest by name.
	Charts map[string][]byte
	Order  []string
}

// LoadBench reads a lockbench run directory: bench.json and the charts.
// A run without a readable bench.json (an older lockbench, a damaged
// file) still loads, with a Note; a directory with neither bench.json nor
// summary.md is not a lockbench run.
func LoadBench(dir string) (*Bench, error) {
	b := &Bench{Dir: dir, Charts: map[string][]byte{}}
	rep, err := bench.ReadReport(filepath.Join(dir, bench.FileJSON))
	switch {
	case err == nil:
		b.Report = rep
		if rep.Format > bench.FormatVersion {
			b.Note = fmt.Sprintf("%s was written by a newer lockbench (format %d; this locksim reads %d): what it adds is not shown.",
				bench.FileJSON, rep.Format, bench.FormatVersion)
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(filepath.Join(dir, bench.FileSummary)); serr != nil {
			return nil, fmt.Errorf("%s does not look like a lockbench run: %w", dir, err)
		}
		b.Note = fmt.Sprintf("This run has no %s (an older lockbench wrote only %s), so its tables are not shown here: see %s.",
			bench.FileJSON, bench.FileSummary, filepath.Join(dir, bench.FileSummary))
	default:
		b.Note = fmt.Sprintf("%s could not be read (%s), so the run's tables are not shown here: see %s.",
			bench.FileJSON, oneLine(err.Error()), filepath.Join(dir, bench.FileSummary))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".png") {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			b.Charts[e.Name()] = data
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if b.Report != nil {
		for _, s := range b.Report.Doc().Sections {
			for _, c := range s.Charts {
				if _, ok := b.Charts[c.PNG()]; ok && !slices.Contains(b.Order, c.PNG()) {
					b.Order = append(b.Order, c.PNG())
				}
			}
		}
	}
	for _, n := range names {
		if !slices.Contains(b.Order, n) {
			b.Order = append(b.Order, n)
		}
	}
	return b, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Unreferenced are the charts the summary does not show itself (all of
// them when there is no bench.json).
func (b *Bench) Unreferenced() []string {
	shown := map[string]bool{}
	if b.Report != nil {
		for _, s := range b.Report.Doc().Sections {
			for _, c := range s.Charts {
				shown[c.PNG()] = true
			}
		}
	}
	var out []string
	for _, n := range b.Order {
		if !shown[n] {
			out = append(out, n)
		}
	}
	return out
}

// noBench is the bench section's one line when the page has no lockbench
// run.
const noBench = "No lockbench run: none was found beside the matrix (under lockbench/ in its results root) or given with --bench. " +
	"Run lockbench (e.g. go run ./cmd/lockbench --quick) and write this page again to see what each design costs."

// benchHTML draws the bench section: the run's summary (bench.Report.Doc,
// the words and tables of its summary.md) with headings under the page's
// h2, its charts inlined.
func (b *Bench) benchHTML() string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	esc := html.EscapeString
	if b.Note != "" {
		p("<p class=\"missing\">%s</p>\n", esc(b.Note))
	}
	if b.Report != nil {
		d := b.Report.Doc()
		p("<h3>%s</h3>\n", esc(d.Title))
		if len(d.Facts) > 0 {
			p("<ul>")
			for _, f := range d.Facts {
				p("<li>%s</li>", textHTML(f))
			}
			p("</ul>\n")
		}
		for _, s := range d.Sections {
			if s.Title != "" {
				p("<h4>%s</h4>\n", esc(s.Title))
			}
			for _, para := range s.Paras {
				p("<p>%s</p>\n", textHTML(para))
			}
			if t := s.Table; t != nil {
				w.WriteString(tableHTML(t))
			}
			if len(s.Items) > 0 {
				p("<ul>")
				for _, it := range s.Items {
					p("<li>%s</li>", textHTML(it))
				}
				p("</ul>\n")
			}
			for _, c := range s.Charts {
				if png := b.Charts[c.PNG()]; png != nil {
					p("<figure><img src=\"%s\" alt=\"%s\"/><figcaption>%s: %s</figcaption></figure>\n",
						dataURI(png), esc(c.Name), esc(c.Name), esc(c.Caption))
				} else {
					p("<p class=\"missing\">chart %s (%s) missing: %s is not in the run's directory</p>\n",
						esc(c.Name), esc(c.Caption), esc(c.PNG()))
				}
			}
		}
	}
	for _, n := range b.Unreferenced() {
		p("<figure><img src=\"%s\" alt=\"%s\"/><figcaption>%s</figcaption></figure>\n", dataURI(b.Charts[n]), esc(n), esc(n))
	}
	return w.String()
}

func tableHTML(t *bench.Table) string {
	var w strings.Builder
	right := func(i int) string {
		if i < len(t.Right) && t.Right[i] {
			return ` style="text-align: right"`
		}
		return ""
	}
	w.WriteString(`<table class="md"><thead><tr>`)
	for i, h := range t.Head {
		fmt.Fprintf(&w, "<th%s>%s</th>", right(i), html.EscapeString(h))
	}
	w.WriteString("</tr></thead><tbody>\n")
	for _, row := range t.Rows {
		w.WriteString("<tr>")
		for i, c := range row {
			fmt.Fprintf(&w, "<td%s>%s</td>", right(i), textHTML(c))
		}
		w.WriteString("</tr>\n")
	}
	w.WriteString("</tbody></table>\n")
	return w.String()
}

// textHTML sets a text's spans: code, bold, plain, every one escaped.
func textHTML(t bench.Text) string {
	var w strings.Builder
	for _, s := range t {
		v := html.EscapeString(s.S)
		switch s.Style {
		case bench.Code:
			w.WriteString("<code>" + v + "</code>")
		case bench.Bold:
			w.WriteString("<strong>" + v + "</strong>")
		default:
			w.WriteString(v)
		}
	}
	return w.String()
}

// LatestBench finds the newest lockbench run under root (results/lockbench):
// root/latest when it is a run, else the last directory by its UTC stamp
// name that holds summary.md and bench.json. It returns "" when there is
// none.
func LatestBench(root string) (string, error) {
	if isBenchRun(filepath.Join(root, "latest")) {
		return filepath.Join(root, "latest"), nil
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var best string
	for _, e := range entries {
		// Stamps start with the year; a hidden name is a run still being
		// written.
		name := e.Name()
		if name[0] < '0' || name[0] > '9' || !isBenchRun(filepath.Join(root, name)) {
			continue
		}
		if name > best {
			best = name
		}
	}
	if best == "" {
		return "", nil
	}
	return filepath.Join(root, best), nil
}

func isBenchRun(dir string) bool {
	for _, f := range []string{bench.FileSummary, bench.FileJSON} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
