package review

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// errNoCostPoints: no design has both a throughput and a fault scenario.
var errNoCostPoints = errors.New("no design has both a throughput and a fault scenario run")

// ChartPNG draws the safety-vs-cost chart: a point per design at (fault
// scenarios survived, cycles/s), the y axis on a log scale, each point
// labelled with the design and "survived/ran"; the raw limit as a dashed
// line. Designs without a throughput are left out (the table lists them).
func (c Cost) ChartPNG() ([]byte, error) {
	var pts plotter.XYs
	var labels []string
	maxX := 0
	for _, r := range c.Rows {
		if r.CyclesPerS <= 0 || r.Ran == 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(r.Survived), Y: math.Log10(r.CyclesPerS)})
		name := r.Algorithm
		if r.Nodes > 1 {
			name += fmt.Sprintf(" (%d nodes)", r.Nodes)
		}
		labels = append(labels, fmt.Sprintf("%s %d/%d", name, r.Survived, r.Ran))
		maxX = max(maxX, r.Ran)
	}
	if len(pts) == 0 {
		return nil, errNoCostPoints
	}
	p := plot.New()
	p.Title.Text = "Safety against cost"
	p.X.Label.Text = "fault scenarios survived (safe in every run)"
	p.Y.Label.Text = fmt.Sprintf("lock cycles/s at %d clients, %s (log)", c.Clients, c.Contention)
	p.X.Min, p.X.Max = -0.5, float64(maxX)+0.5
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range pts {
		lo, hi = min(lo, q.Y), max(hi, q.Y)
	}
	if c.Raw > 0 {
		hi = max(hi, math.Log10(c.Raw))
	}
	p.Y.Min, p.Y.Max = math.Floor(lo*5)/5-0.1, math.Ceil(hi*5)/5+0.1
	p.Y.Tick.Marker = powTicks{}
	p.X.Tick.Marker = intTicks{}
	p.Add(plotter.NewGrid())

	if c.Raw > 0 {
		raw, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: math.Log10(c.Raw)}, {X: p.X.Max, Y: math.Log10(c.Raw)}})
		if err != nil {
			return nil, err
		}
		raw.Color, raw.Dashes = color.Gray{Y: 90}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(raw)
		p.Legend.Add("raw limit, 1 node", raw)
		p.Legend.Top = true
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(plot.DefaultFont, 9)
		lb.TextStyle[i].XAlign = draw.XLeft
	}
	lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-3)}
	spreadLabels(pts, lb)
	p.Add(lb)

	img := vgimg.NewWith(vgimg.UseWH(9*vg.Inch, 5.5*vg.Inch), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// spreadLabels nudges the labels of points that sit close together (same
// survived count, near throughput) apart vertically, so that none is
// printed over another.
func spreadLabels(pts plotter.XYs, lb *plotter.Labels) {
	const near = 0.045 // in log10 units
	for i := range pts {
		n := 0
		for j := range i {
			if pts[j].X == pts[i].X && math.Abs(pts[j].Y-pts[i].Y) < near*float64(n+1) {
				n++
			}
		}
		if n > 0 {
			lb.XYs[i].Y -= near * float64(n)
		}
	}
}

// powTicks labels a log10 axis with the values themselves at 1, 2 and 5
// of every decade.
type powTicks struct{}

func (powTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := math.Log10(m) + e
			if v < lo || v > hi {
				continue
			}
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%g", m*math.Pow(10, e))})
		}
	}
	return out
}

// intTicks labels whole numbers only.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	step := math.Max(1, math.Ceil((hi-lo)/15))
	for v := math.Ceil(lo); v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return out
}
