package bench

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
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

// sentinelBands shades Sentinel's failover windows (UnderRun.Sentinel):
// master down, then failover in progress, each in its own colour, named at
// the bottom of the plot (the faults are named at the top).
type sentinelBands struct {
	windows []FaultWindow
}

const (
	sentinelDown     = "master down (Sentinel)"
	sentinelFailover = "failover in progress"
)

var sentinelColor = map[string]color.NRGBA{
	sentinelDown:     {200, 30, 30, 55},
	sentinelFailover: {230, 170, 0, 80},
}

var sentinelText = map[string]color.RGBA{
	sentinelDown:     {150, 20, 20, 255},
	sentinelFailover: {140, 95, 0, 255},
}

// sentinelState is the state a window's name ends with.
func sentinelState(w FaultWindow) string {
	if strings.HasSuffix(w.Fault, sentinelDown) {
		return sentinelDown
	}
	return sentinelFailover
}

func (b sentinelBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, w := range b.windows {
		st := sentinelState(w)
		x0, x1 := trX(w.StartS), trX(w.EndS)
		if x1-x0 < vg.Points(1.5) {
			x1 = x0 + vg.Points(1.5)
		}
		c.FillPolygon(sentinelColor[st], c.ClipPolygonXY([]vg.Point{
			{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y},
		}))
		if !c.ContainsX(x0) {
			continue
		}
		ts := draw.TextStyle{
			Color: sentinelText[st], Font: font.From(plot.DefaultFont, 9),
			XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler,
		}
		y := c.Min.Y + vg.Points(2) + vg.Points(10)*vg.Length(i%2)
		c.FillText(ts, vg.Point{X: x0 + vg.Points(2), Y: y}, st)
	}
}

// sentinelThumb is a legend entry for one of Sentinel's states.
type sentinelThumb string

func (s sentinelThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(sentinelColor[string(s)], []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

var outcomeStyle = map[history.Outcome]draw.GlyphStyle{
	history.OK:      {Color: color.RGBA{31, 119, 180, 200}, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}},
	history.Fail:    {Color: color.RGBA{110, 110, 110, 170}, Radius: vg.Points(1.8), Shape: draw.TriangleGlyph{}},
	history.Unknown: {Color: color.RGBA{214, 39, 40, 255}, Radius: vg.Points(3), Shape: draw.CrossGlyph{}},
}

// writeTimeline draws, per design, each lease's acquire latency against
// when its wait began, and each refused or unknown attempt's own latency
// against its call, with the fault windows and Sentinel's failover
// windows shaded.
func (r *Report) writeTimeline(dir string) error {
	u := r.Under
	if u == nil || len(u.Runs) == 0 {
		return nil
	}
	var grid [][]*plot.Plot
	sentinel := false
	for _, run := range u.Runs {
		p := newPlot(fmt.Sprintf("%s: %d clients, %s, hold %s, retry every %s", run.Algorithm, run.Clients,
			nodesText(run.Nodes), fmtDur(run.HoldMs), fmtDur(run.RetryMs)),
			"time since the run started (s)", "acquire latency (ms, log)")
		p.Add(faultBands{run.Faults})
		if len(run.Sentinel) > 0 {
			p.Add(sentinelBands{run.Sentinel})
			sentinel = true
		}
		for _, o := range []history.Outcome{history.Fail, history.Unknown, history.OK} {
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
		for _, f := range append(slices.Clone(run.Faults), run.Sentinel...) {
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
	lg.Add("refused attempt (its own latency)", glyphThumb(outcomeStyle[history.Fail]))
	lg.Add("attempt with unknown outcome", glyphThumb(outcomeStyle[history.Unknown]))
	lg.Add("fault window (each its own colour)", faultBands{})
	if sentinel {
		lg.Add("master down: +sdown to +odown", sentinelThumb(sentinelDown))
		lg.Add("failover: +odown to +switch-master", sentinelThumb(sentinelFailover))
	}
	f := figure{
		title: fmt.Sprintf("lockbench: acquire latency and refusals over time under scenario %q\n%s; backend %s", u.Scenario, r.Machine, r.Backend),
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
