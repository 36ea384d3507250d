package bench

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/locksim/locksim/history"
)

// faultBands shades each fault window over the full height of the plot, as
// Jepsen's latency plots do, with the fault's name at the top.
type faultBands struct {
	windows []FaultWindow
}

// bandColors tell overlapping windows apart (a crash lasts to the end of
// the run and spans every later window).
var bandColors = []color.NRGBA{
	{255, 140, 0, 60}, {70, 130, 180, 60}, {60, 179, 113, 60}, {186, 85, 211, 60}, {128, 128, 128, 60},
}

var bandText = []color.RGBA{{170, 80, 0, 255}, {40, 80, 130, 255}, {30, 110, 60, 255}, {120, 40, 150, 255}, {70, 70, 70, 255}}

func (b faultBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, w := range b.windows {
		ts := draw.TextStyle{
			Color: bandText[i%len(bandText)], Font: font.From(plot.DefaultFont, 9),
			XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler,
		}
		x0, x1 := trX(w.StartS), trX(w.EndS)
		if x1-x0 < vg.Points(1.5) { // an instant fault (a crash) still shows
			x1 = x0 + vg.Points(1.5)
		}
		c.FillPolygon(bandColors[i%len(bandColors)], c.ClipPolygonXY([]vg.Point{
			{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y},
		}))
		// Labels step down so that neighbouring windows do not overprint.
		y := c.Max.Y - vg.Points(2) - vg.Points(10)*vg.Length(i%5)
		if c.ContainsX(x0) {
			name, _, _ := strings.Cut(w.Fault, " (") // the schedule is in summary.md
			c.FillText(ts, vg.Point{X: x0 + vg.Points(2), Y: y}, name)
		}
	}
}

func (b faultBands) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(bandColors[0], []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

var outcomeStyle = map[history.Outcome]draw.GlyphStyle{
	history.OK:      {Color: color.RGBA{31, 119, 180, 200}, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}},
	history.Unknown: {Color: color.RGBA{214, 39, 40, 255}, Radius: vg.Points(3), Shape: draw.CrossGlyph{}},
}

// writeTimeline draws, per design, each acquire's latency against when its
// wait began, with the fault windows shaded.
func (r *Report) writeTimeline(dir string) error {
	u := r.Under
	if u == nil || len(u.Runs) == 0 {
		return nil
	}
	var grid [][]*plot.Plot
	for _, run := range u.Runs {
		p := newPlot(fmt.Sprintf("%s: %d clients, %s, hold %s, retry every %s", run.Algorithm, run.Clients,
			nodesText(run.Nodes), fmtDur(run.HoldMs), fmtDur(run.RetryMs)),
			"time since the run started (s)", "acquire latency (ms, log)")
		p.Add(faultBands{run.Faults})
		for _, o := range []history.Outcome{history.OK, history.Unknown} {
			var xy plotter.XYs
			for _, pt := range run.points {
				if pt.Outcome == o {
					xy = append(xy, plotter.XY{X: pt.At.Seconds(), Y: lg(max(float64(pt.Latency)/float64(time.Millisecond), 0.001))})
				}
			}
			if len(xy) == 0 {
				continue
			}
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return fmt.Errorf("chart %s: %w", ChartTimeline, err)
			}
			s.GlyphStyle = outcomeStyle[o]
			p.Add(s)
		}
		end := run.DurationS
		for _, f := range run.Faults {
			end = max(end, f.EndS)
		}
		// A little room left of 0, so that the first points clear the axis.
		p.X.Min, p.X.Max = -end/50, end
		logY(p, false)
		grid = append(grid, []*plot.Plot{p})
	}
	lg := plot.NewLegend()
	lg.TextStyle.Font.Size = vg.Points(10)
	lg.Add("acquired (latency from first attempt)", glyphThumb(outcomeStyle[history.OK]))
	lg.Add("attempt with unknown outcome", glyphThumb(outcomeStyle[history.Unknown]))
	lg.Add("fault window (each its own colour)", faultBands{})
	f := figure{
		title: fmt.Sprintf("lockbench: acquire latency over time under scenario %q\n%s; backend %s", u.Scenario, r.Machine, r.Backend),
		w:     11 * vg.Inch, h: vg.Length(0.9+2.6*float64(len(grid))) * vg.Inch,
		plots: grid, legend: &lg, legendW: 2.6 * vg.Inch,
	}
	if err := f.save(filepath.Join(dir, ChartTimeline)); err != nil {
		return fmt.Errorf("chart %s: %w", ChartTimeline, err)
	}
	return nil
}

type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle(g), vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2})
}
