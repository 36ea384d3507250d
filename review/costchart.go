package review

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

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
	if c.RawFanout > 0 {
		lo = min(lo, math.Log10(c.RawFanout))
	}
	p.Y.Min, p.Y.Max = math.Floor(lo*5)/5-0.1, math.Ceil(hi*5)/5+0.1
	p.Y.Tick.Marker = powTicks{}
	p.X.Tick.Marker = intTicks{}
	p.Add(plotter.NewGrid())

	for _, ref := range []struct {
		v      float64
		label  string
		dashes []vg.Length
	}{
		{c.Raw, "raw limit, 1 node", []vg.Length{vg.Points(4), vg.Points(3)}},
		{c.RawFanout, fmt.Sprintf("raw fan-out, %d nodes", c.RawNodes), []vg.Length{vg.Points(1), vg.Points(3)}},
	} {
		if ref.v <= 0 {
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: math.Log10(ref.v)}, {X: p.X.Max, Y: math.Log10(ref.v)}})
		if err != nil {
			return nil, err
		}
		line.Color, line.Dashes = color.Gray{Y: 70}, ref.dashes
		p.Add(line)
		p.Legend.Add(ref.label, line)
	}
	p.Legend.Top = true
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
	spreadLabels(pts, lb, (p.X.Max-p.X.Min)*0.085, (p.Y.Max-p.Y.Min)*0.035)
	// A label moved off its point gets a leader line back to it.
	for i, q := range pts {
		if lb.XYs[i].Y == q.Y {
			continue
		}
		lead, err := plotter.NewLine(plotter.XYs{q, {X: q.X + (p.X.Max-p.X.Min)*0.008, Y: lb.XYs[i].Y}})
		if err != nil {
			return nil, err
		}
		lead.Color, lead.Width = color.Gray{Y: 140}, vg.Points(0.6)
		p.Add(lead)
	}
	p.Add(lb)

	img := vgimg.NewWith(vgimg.UseWH(9*vg.Inch, 5.5*vg.Inch), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// spreadLabels moves labels down, highest point first, until none is
// printed over another label or another design's dot: two labels clash when their points are less than
// wide apart on x (a label's width, in x units) and less than near apart
// on y (a line's height, in log10 units).
func spreadLabels(pts plotter.XYs, lb *plotter.Labels, wide, near float64) {
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(pts[b].Y, pts[a].Y) })
	var placed []int
	for _, i := range order {
		for range len(pts) { // bounded: each pass moves below one more label
			clash := false
			for _, j := range placed {
				if math.Abs(pts[j].X-pts[i].X) < wide && math.Abs(lb.XYs[j].Y-lb.XYs[i].Y) < near {
					clash = true
					lb.XYs[i].Y = lb.XYs[j].Y - near
				}
			}
			// nor over another design's dot to its right
			for j := range pts {
				if dx := pts[j].X - pts[i].X; j != i && dx > 0 && dx < wide && math.Abs(pts[j].Y-lb.XYs[i].Y) < near {
					clash = true
					lb.XYs[i].Y = pts[j].Y - near
				}
			}
			if !clash {
				break
			}
		}
		placed = append(placed, i)
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
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v+0)}) // +0: no "-0"
	}
	return out
}
