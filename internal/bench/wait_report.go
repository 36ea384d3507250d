package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The files of a wait comparison.
const (
	FileWaitJSON    = "wait.json"
	FileWaitCSV     = "wait.csv"
	FileWaitSummary = "wait.md"
	FileWaitChart   = "wait" // .svg and .png
)

// Write writes the comparison's files into dir atomically: into a
// temporary directory first, renamed into place once every file is
// complete.
func (r *WaitReport) Write(dir string) error {
	return writeAtomically(dir, func(tmp string) error {
		if err := writeFile(filepath.Join(tmp, FileWaitJSON), func(f *os.File) error {
			enc := json.NewEncoder(f)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(tmp, FileWaitCSV), r.writeCSV); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(tmp, FileWaitSummary), func(f *os.File) error {
			_, err := f.WriteString(r.Summary())
			return err
		}); err != nil {
			return err
		}
		return r.chart().save(filepath.Join(tmp, FileWaitChart))
	})
}

func (r *WaitReport) writeCSV(f *os.File) error {
	w := csv.NewWriter(f)
	_ = w.Write([]string{"wait", "clients", "cycles", "cycles_per_s", "acquire_p50_ms", "acquire_p99_ms",
		"commands_per_lock", "min_per_client", "max_per_client", "fairness_cv", "errors"})
	for _, x := range r.Results {
		_ = w.Write([]string{x.Wait, strconv.Itoa(x.Clients), strconv.FormatInt(x.Cycles, 10), ff(x.CyclesPerS),
			ff(x.AcquireP50Ms), ff(x.AcquireP99Ms), ff(x.CommandsPerLock), strconv.FormatInt(x.MinPerClient, 10),
			strconv.FormatInt(x.MaxPerClient, 10), ff(x.FairnessCV), strconv.FormatInt(x.Errors, 10)})
	}
	w.Flush()
	return w.Error()
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// Summary is wait.md: the table and how to read it.
func (r *WaitReport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# lockbench --wait: poll against notify on one hot key\n\n")
	fmt.Fprintf(&b, "%s on %s; hold %gms, ttl %gms, %gs measured per row; %s; wall %.0f s.\n\n",
		r.Algorithm, r.Backend, r.HoldMs, r.TTLMs, r.DurationS, r.Machine, r.WallS)
	b.WriteString(r.Table())
	b.WriteString("\nAcquire latency runs from a client's first attempt to the lease in hand, its wait included. " +
		"Commands per lock count every command Redis ran (INFO commandstats, the commands inside scripts included) " +
		"per completed cycle. Fairness: the fewest and most cycles any one client completed, and the coefficient of " +
		"variation of the cycles over the clients (0 is perfectly even).\n")
	return b.String()
}

// Table is the markdown table of the results.
func (r *WaitReport) Table() string {
	var b strings.Builder
	b.WriteString("| wait | clients | cycles/s | acquire p50 | acquire p99 | commands/lock | cycles per client (min–max) | fairness CV | errors |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		cmds := "–"
		if x.CommandsPerLock >= 0 {
			cmds = fmt.Sprintf("%.1f", x.CommandsPerLock)
		}
		fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %s | %s | %d–%d | %.2f | %d |\n", x.Wait, x.Clients, x.CyclesPerS,
			msText(x.AcquireP50Ms), msText(x.AcquireP99Ms), cmds, x.MinPerClient, x.MaxPerClient, x.FairnessCV, x.Errors)
	}
	return b.String()
}

func msText(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

var waitColors = []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255}}

// chart draws cycles/s, acquire p50 and p99, and commands per lock against
// clients, one line per variant.
func (r *WaitReport) chart() figure {
	var variants []string
	var clients []int
	for _, x := range r.Results {
		if !slices.Contains(variants, x.Wait) {
			variants = append(variants, x.Wait)
		}
		if !slices.Contains(clients, x.Clients) {
			clients = append(clients, x.Clients)
		}
	}
	panels := []struct {
		title, y string
		v        func(WaitResult) float64
	}{
		{"lock cycles per second (more is better)", "cycles/s", func(x WaitResult) float64 { return x.CyclesPerS }},
		{"commands per acquired lock (Redis load)", "commands", func(x WaitResult) float64 { return x.CommandsPerLock }},
		{"acquire latency p50 (waiting included)", "ms", func(x WaitResult) float64 { return x.AcquireP50Ms }},
		{"acquire latency p99", "ms", func(x WaitResult) float64 { return x.AcquireP99Ms }},
	}
	legend := plot.NewLegend()
	grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
	for i, pn := range panels {
		p := newPlot(pn.title, "clients on one key", pn.y)
		clientTicks(p, clients)
		for vi, name := range variants {
			c := waitColors[vi%len(waitColors)]
			s := seriesStyle{
				line:  draw.LineStyle{Color: c, Width: vg.Points(1.8)},
				glyph: draw.GlyphStyle{Color: c, Radius: vg.Points(2.8), Shape: draw.CircleGlyph{}},
			}
			if name == "notify" {
				s.glyph.Shape = draw.BoxGlyph{}
			}
			var xy plotter.XYs
			for _, x := range r.Results {
				if x.Wait == name {
					xy = append(xy, plotter.XY{X: float64(x.Clients), Y: pn.v(x)})
				}
			}
			_ = addSeries(p, xy, s)
			if i == 0 {
				legend.Add(name, s)
			}
		}
		logY(p, pn.y != "ms")
		grid[i/2][i%2] = p
	}
	return figure{
		title: fmt.Sprintf("lockbench --wait: %s, one hot key, %s", r.Algorithm, r.Backend),
		w:     vg.Length(11) * vg.Inch, h: vg.Length(7.5) * vg.Inch,
		plots: grid, legend: &legend, legendW: vg.Length(1.4) * vg.Inch,
	}
}
