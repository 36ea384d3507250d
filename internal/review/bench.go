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

	"github.com/locksim/locksim/internal/bench"
)

// Bench is a lockbench run as the page shows it: its data (bench.json,
// told in the words summary.md uses, bench.Report.Doc) and its charts.
type Bench struct {
	Dir string
	// Why says how the run was chosen (BenchChoice.Why).
	Why string
	// Partial says how the run falls short of a full sweep
	// (bench.Report.Partial); the page says it next to the run. When
	// bench.json cannot be read, it says that nothing shows the run full.
	Partial []string
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
		b.Partial = rep.Partial()
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
	if b.Report == nil {
		b.Partial = []string{"without a readable " + bench.FileJSON + " nothing shows what it measured"}
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
			if len(s.Charts) > 0 {
				p("<ul class=\"charts\">")
				for _, c := range s.Charts {
					p("<li><a href=\"#%s\">%s</a>: %s</li>", chartAnchor(c.PNG()), esc(c.Name), esc(c.Caption))
				}
				p("</ul>\n")
			}
			for _, c := range s.Charts {
				if png := b.Charts[c.PNG()]; png != nil {
					id := chartAnchor(c.PNG())
					p("<figure id=\"%s\"><img src=\"%s\" alt=\"%s\"/><figcaption><a href=\"#%s\">%s</a>: %s</figcaption></figure>\n",
						id, dataURI(png), esc(c.Name), id, esc(c.Name), esc(c.Caption))
				} else {
					p("<p class=\"missing\" id=\"%s\">chart %s (%s) missing: %s is not in the run's directory</p>\n",
						chartAnchor(c.PNG()), esc(c.Name), esc(c.Caption), esc(c.PNG()))
				}
			}
		}
	}
	if more := b.Unreferenced(); len(more) > 0 {
		p("<ul class=\"charts\">")
		for _, n := range more {
			p("<li><a href=\"#%s\">%s</a></li>", chartAnchor(n), esc(n))
		}
		p("</ul>\n")
		for _, n := range more {
			id := chartAnchor(n)
			p("<figure id=\"%s\"><img src=\"%s\" alt=\"%s\"/><figcaption><a href=\"#%s\">%s</a></figcaption></figure>\n",
				id, dataURI(b.Charts[n]), esc(n), id, esc(n))
		}
	}
	return w.String()
}

// chartAnchor is the page id of a chart's figure: the chart names in the
// bench section link to it.
func chartAnchor(png string) string {
	return "chart-" + anchorSafe(strings.TrimSuffix(png, ".png"))
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

// BenchChoice is the lockbench run a page shows, and why that one.
type BenchChoice struct {
	// Dir is the run; "" for none.
	Dir string
	// Why is said on the page: how the run was chosen, or, without Dir,
	// why there is none.
	Why string
	// OwnSweep: the run was measured for this page (locksim review).
	OwnSweep bool
}

// GivenBench is the run named on the command line (--bench DIR); "" leaves
// the bench out.
func GivenBench(dir string) BenchChoice {
	if dir == "" {
		return BenchChoice{Why: `No lockbench run: left out with --bench "".`}
	}
	return BenchChoice{Dir: dir, Why: "given with --bench"}
}

// NewestFullBench chooses the run a page shows by default from root
// (results/lockbench): the newest full run by its UTC stamp name
// (bench.Report.Partial), passing over newer partial ones (a --quick run,
// a narrowed sweep, a run under a scenario) and saying so; when there is
// no full run, the newest partial sweep, saying that it is partial. A run
// under a scenario (--under) measured latency while faults played, not the
// sweep, and is never chosen. A
// directory is a run when it holds summary.md and bench.json; a hidden
// name is a run still being written.
func NewestFullBench(root string) (BenchChoice, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return BenchChoice{Why: fmt.Sprintf("No lockbench run: there is none under %s. %s", root, runBench)}, nil
	}
	if err != nil {
		return BenchChoice{}, err
	}
	var runs []string
	for _, e := range entries {
		name := e.Name()
		if name[0] >= '0' && name[0] <= '9' && isBenchRun(filepath.Join(root, name)) {
			runs = append(runs, name)
		}
	}
	if len(runs) == 0 {
		return BenchChoice{Why: fmt.Sprintf("No lockbench run: there is none under %s. %s", root, runBench)}, nil
	}
	sort.Sort(sort.Reverse(sort.StringSlice(runs)))
	var passed []string
	fallback := ""
	for _, name := range runs {
		rep, err := bench.ReadReport(filepath.Join(root, name, bench.FileJSON))
		if err != nil || rep.Under != nil {
			// Unreadable, or latency under a scenario: never a sweep.
			passed = append(passed, name)
			continue
		}
		if len(rep.Partial()) > 0 {
			passed = append(passed, name)
			if fallback == "" {
				fallback = name
			}
			continue
		}
		why := "the newest full run under " + root
		if len(passed) > 0 {
			why += fmt.Sprintf("; %d newer run(s) that are partial, under a scenario or unreadable left out (%s): give --bench DIR to show one",
				len(passed), strings.Join(passed, ", "))
		}
		return BenchChoice{Dir: filepath.Join(root, name), Why: why}, nil
	}
	if fallback == "" {
		return BenchChoice{Why: fmt.Sprintf("No lockbench sweep: the runs under %s measured a scenario's faults (--under) or cannot be read. %s", root, runBench)}, nil
	}
	return BenchChoice{Dir: filepath.Join(root, fallback),
		Why: "no full run under " + root + ", so the newest sweep there, which is partial"}, nil
}

// runBench says how to get a bench run.
const runBench = "Run lockbench (go run ./cmd/lockbench for the full sweep; --quick gives a partial one in about a minute) " +
	"and write this page again to see what each design costs."

func isBenchRun(dir string) bool {
	for _, f := range []string{bench.FileSummary, bench.FileJSON} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
