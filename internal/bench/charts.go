package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart files of a sweep, without extension (each is written as .svg and
// .png).
const (
	ChartThroughput = "throughput"
	ChartLatency    = "latency"
	ChartCDF        = "cdf"
	ChartTimeline   = "timeline"
)

func contentionTitle(m Contention) string {
	if m == HotKey {
		return "one hot key: every client contends"
	}
	return "one key per client: no contention"
}

// figureTitle is the chart's subject over the machine and backend.
func (r *Report) figureTitle(what string) string {
	return fmt.Sprintf("lockbench: %s\n%s; backend %s", what, r.Machine, r.Backend)
}

// series is one design at one cluster size within one contention mode.
type series struct {
	algo  string
	nodes int
	rs    []Result // by clients
}

func seriesOf(rs []Result, m Contention) []series {
	var out []series
	for _, r := range rs {
		if r.Contention != m {
			continue
		}
		i := slices.IndexFunc(out, func(s series) bool { return s.algo == r.Algorithm && s.nodes == r.Nodes })
		if i < 0 {
			out = append(out, series{algo: r.Algorithm, nodes: r.Nodes})
			i = len(out) - 1
		}
		out[i].rs = append(out[i].rs, r)
	}
	for _, s := range out {
		slices.SortFunc(s.rs, func(a, b Result) int { return a.Clients - b.Clients })
	}
	return out
}

func (r *Report) contentions() []Contention {
	var out []Contention
	for _, m := range Contentions() {
		if slices.ContainsFunc(r.Results, func(x Result) bool { return x.Contention == m }) {
			out = append(out, m)
		}
	}
	return out
}

func (r *Report) clients() []int {
	var out []int
	for _, x := range r.Results {
		if !slices.Contains(out, x.Clients) {
			out = append(out, x.Clients)
		}
	}
	slices.Sort(out)
	return out
}

// legendFor has one entry per design and cluster size, in result order.
func legendFor(rs []Result, glyphs bool) *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(10)
	l.ThumbnailWidth = vg.Points(26)
	var seen []string
	for _, r := range rs {
		name := seriesName(r.Algorithm, r.Nodes)
		if slices.Contains(seen, name) {
			continue
		}
		seen = append(seen, name)
		st := styleOf(r.Algorithm, r.Nodes)
		st.noGlyph = !glyphs
		l.Add(name, st)
	}
	return &l
}

// writeSweepCharts writes the throughput, latency and CDF charts into dir.
func (r *Report) writeSweepCharts(dir string) error {
	if len(r.Results) == 0 || r.Under != nil {
		return nil
	}
	for _, c := range []struct {
		name string
		fig  func() (figure, error)
	}{
		{ChartThroughput, r.throughputFigure},
		{ChartLatency, r.latencyFigure},
		{ChartCDF, r.cdfFigure},
	} {
		f, err := c.fig()
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.name, err)
		}
		if err := f.save(filepath.Join(dir, c.name)); err != nil {
			return fmt.Errorf("chart %s: %w", c.name, err)
		}
	}
	return nil
}

// throughputFigure: completed cycles per second against clients, a line
// per design, one panel per contention mode.
func (r *Report) throughputFigure() (figure, error) {
	ms := r.contentions()
	row := make([]*plot.Plot, len(ms))
	for j, m := range ms {
		p := newPlot(contentionTitle(m), "concurrent clients", "lock cycles per second (log scale)")
		for _, s := range seriesOf(r.Results, m) {
			var xy plotter.XYs
			for _, x := range s.rs {
				xy = append(xy, plotter.XY{X: float64(x.Clients), Y: x.Throughput})
			}
			if err := addSeries(p, xy, styleOf(s.algo, s.nodes)); err != nil {
				return figure{}, err
			}
		}
		clientTicks(p, r.clients())
		logY(p, true)
		row[j] = p
	}
	return figure{
		title: r.figureTitle(fmt.Sprintf("throughput vs clients (hold %s, retry every %s)",
			fmtDur(r.Settings.HoldMs), fmtDur(r.Settings.RetryMs))),
		w: vg.Length(5.2*float64(len(ms))+2.3) * vg.Inch, h: 5.2 * vg.Inch,
		plots: [][]*plot.Plot{row}, legend: legendFor(r.Results, true),
	}, nil
}

// latencyFigure: acquire latency p50 (top) and p99 (bottom) against
// clients, log scale, one column per contention mode.
func (r *Report) latencyFigure() (figure, error) {
	ms := r.contentions()
	quantiles := []struct {
		name string
		get  func(Percentiles) float64
	}{
		{"p50", func(p Percentiles) float64 { return p.P50 }},
		{"p99", func(p Percentiles) float64 { return p.P99 }},
	}
	grid := make([][]*plot.Plot, len(quantiles))
	for i, q := range quantiles {
		grid[i] = make([]*plot.Plot, len(ms))
		for j, m := range ms {
			p := newPlot(fmt.Sprintf("%s acquire latency, %s", q.name, contentionTitle(m)),
				"concurrent clients", fmt.Sprintf("%s acquire latency (ms, log scale)", q.name))
			for _, s := range seriesOf(r.Results, m) {
				var xy plotter.XYs
				for _, x := range s.rs {
					xy = append(xy, plotter.XY{X: float64(x.Clients), Y: q.get(x.Acquire) / 1000})
				}
				if err := addSeries(p, xy, styleOf(s.algo, s.nodes)); err != nil {
					return figure{}, err
				}
			}
			clientTicks(p, r.clients())
			logY(p, false)
			grid[i][j] = p
		}
	}
	return figure{
		title: r.figureTitle("acquire latency vs clients (blocking acquire, retries included)"),
		w:     vg.Length(5.2*float64(len(ms))+2.3) * vg.Inch, h: 9 * vg.Inch,
		plots: grid, legend: legendFor(r.Results, true),
	}, nil
}

// cdfFigure: the distribution of acquire latency at the largest client
// count, one panel per contention mode.
func (r *Report) cdfFigure() (figure, error) {
	ms := r.contentions()
	top := slices.Max(r.clients())
	row := make([]*plot.Plot, len(ms))
	for j, m := range ms {
		p := newPlot(fmt.Sprintf("%d clients, %s", top, contentionTitle(m)),
			"acquire latency (ms, log scale)", "share of acquires at or below")
		for _, s := range seriesOf(r.Results, m) {
			i := slices.IndexFunc(s.rs, func(x Result) bool { return x.Clients == top })
			if i < 0 || s.rs[i].acquireHist == nil {
				continue
			}
			var xy plotter.XYs
			for _, pt := range cdf(s.rs[i].acquireHist) {
				xy = append(xy, plotter.XY{X: lg(float64(pt.Latency) / float64(time.Millisecond)), Y: pt.Share})
			}
			st := styleOf(s.algo, s.nodes)
			l, err := plotter.NewLine(xy)
			if err != nil {
				return figure{}, err
			}
			l.LineStyle = st.line
			p.Add(l)
		}
		logRange(&p.X)
		p.X.Tick.Marker = logTicks{}
		p.Y.Min, p.Y.Max = 0, 1
		p.Y.Tick.Marker = plot.ConstantTicks{
			{Value: 0, Label: "0"}, {Value: 0.1}, {Value: 0.2}, {Value: 0.25, Label: "0.25"}, {Value: 0.3}, {Value: 0.4},
			{Value: 0.5, Label: "0.5"}, {Value: 0.6}, {Value: 0.7}, {Value: 0.75, Label: "0.75"}, {Value: 0.8},
			{Value: 0.9, Label: "0.9"}, {Value: 1, Label: "1"},
		}
		row[j] = p
	}
	var at []Result
	for _, x := range r.Results {
		if x.Clients == top {
			at = append(at, x)
		}
	}
	lg := legendFor(at, false)
	return figure{
		title: r.figureTitle(fmt.Sprintf("acquire latency CDF at %d clients", top)),
		w:     vg.Length(5.2*float64(len(ms))+2.3) * vg.Inch, h: 5.2 * vg.Inch,
		plots: [][]*plot.Plot{row}, legend: lg,
	}, nil
}
