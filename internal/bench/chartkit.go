package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/locksim/locksim/lock"
)

// figure is a grid of plots with one title over all of them and, if set, a
// legend in its own column on the right, so that no line hides behind it.
type figure struct {
	title  string
	w, h   vg.Length
	plots  [][]*plot.Plot
	legend *plot.Legend
	// legendW is the legend column's width [2.1in].
	legendW vg.Length
}

const (
	pngDPI      = 144
	titleHeight = vg.Length(0.7) * vg.Inch
)

// save writes base.svg and base.png.
func (f figure) save(base string) error {
	svg := vgsvg.NewWith(vgsvg.UseWH(f.w, f.h))
	f.draw(draw.New(svg))
	if err := writeTo(base+".svg", svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	f.draw(draw.New(img))
	return writeTo(base+".png", vgimg.PngCanvas{Canvas: img})
}

func writeTo(path string, w io.WriterTo) error {
	f, err := os.Create(filepath.Clean(path))
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

func (f figure) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	ts := draw.TextStyle{
		Color: color.Black, Font: font.From(plot.DefaultFont, 13),
		XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler,
	}
	dc.FillText(ts, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(8)}, f.title)
	area := draw.Crop(dc, 0, 0, 0, -titleHeight)
	if f.legend != nil {
		lw := f.legendW
		if lw == 0 {
			lw = vg.Length(2.1) * vg.Inch
		}
		legendArea := draw.Crop(area, area.Max.X-area.Min.X-lw, 0, 0, -vg.Points(20))
		area = draw.Crop(area, 0, -lw, 0, 0)
		f.legend.Top, f.legend.Left = true, true
		f.legend.Draw(legendArea)
	}
	rows, cols := len(f.plots), len(f.plots[0])
	tiles := draw.Tiles{
		Rows: rows, Cols: cols,
		PadTop: vg.Points(4), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(10),
		PadX: vg.Points(18), PadY: vg.Points(14),
	}
	canvases := plot.Align(f.plots, tiles, area)
	for i := range f.plots {
		for j, p := range f.plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}

// seriesStyle is how one design (at one cluster size) is drawn in every
// chart: colour by design, dash by kind (solid: locksim's, dashed: peer,
// dotted black: raw), glyph by cluster size.
type seriesStyle struct {
	line    draw.LineStyle
	glyph   draw.GlyphStyle
	noGlyph bool // the chart draws lines alone (CDF)
}

func (s seriesStyle) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(s.line, c.Min.X, y, c.Max.X, y)
	if !s.noGlyph {
		c.DrawGlyph(s.glyph, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: y})
	}
}

// The designs of the headline comparisons, and the others --quick
// measures, get fixed colours that stay apart; the rest take the palette in
// catalogue order.
var (
	fixedColors = map[string]color.RGBA{
		"setpx":     {31, 119, 180, 255},  // blue
		"redislock": {255, 127, 14, 255},  // orange
		"redlock":   {44, 160, 44, 255},   // green
		"redsync":   {148, 103, 189, 255}, // purple
		"fenced":    {214, 39, 40, 255},   // red
		"lua-setnx": {140, 86, 75, 255},   // brown
		"reentrant": {23, 190, 207, 255},  // cyan
	}
	palette = []color.RGBA{
		{227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {0, 0, 128, 255},
		{128, 0, 0, 255}, {0, 128, 128, 255}, {170, 110, 0, 255}, {90, 60, 200, 255},
		{255, 187, 120, 255}, {60, 60, 60, 255},
	}
)

func colorOf(algo string) color.Color {
	if c, ok := fixedColors[algo]; ok {
		return c
	}
	i := 0
	for _, n := range lock.Names() {
		if n == algo {
			break
		}
		if _, ok := fixedColors[n]; !ok {
			i++
		}
	}
	return palette[i%len(palette)]
}

func styleOf(algo string, nodes int) seriesStyle {
	c := colorOf(algo)
	s := seriesStyle{
		line:  draw.LineStyle{Color: c, Width: vg.Points(1.6)},
		glyph: draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}},
	}
	switch kindOf(algo) {
	case KindRaw:
		s.line.Color, s.glyph.Color = color.Black, color.Black
		s.line.Width = vg.Points(2.2)
		s.line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		s.glyph.Shape = draw.CrossGlyph{}
	case KindPeer:
		s.line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	switch nodes {
	case 1:
	case 2, 3:
		s.glyph.Shape = draw.PyramidGlyph{}
	default:
		s.glyph.Shape = draw.BoxGlyph{}
	}
	return s
}

// seriesName labels a design at a cluster size; single-node designs need
// no size.
func seriesName(algo string, nodes int) string {
	if multiNode(algo) {
		return fmt.Sprintf("%s, %d nodes", algo, nodes)
	}
	return algo
}

// addSeries draws xy as a line with glyphs on log10 x and y axes; points
// that have no logarithm (no data) are left out.
func addSeries(p *plot.Plot, xy plotter.XYs, s seriesStyle) error {
	var pts plotter.XYs
	for _, v := range xy {
		if v.X > 0 && v.Y > 0 {
			pts = append(pts, plotter.XY{X: lg(v.X), Y: lg(v.Y)})
		}
	}
	xy = pts
	if len(xy) == 0 {
		return nil
	}
	l, sc, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	l.LineStyle, sc.GlyphStyle = s.line, s.glyph
	p.Add(l, sc)
	return nil
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	return p
}

// Log axes are drawn as linear axes over log10 of the data, labelled with
// the data's own values. (gonum's LogScale places a centred axis label's
// glyph box at the arithmetic mean of the range, which on a log axis pads
// the plot with a band of empty space.)

// lg is the axis coordinate of v on a log axis.
func lg(v float64) float64 { return math.Log10(v) }

// logTicks labels a log10 axis at 1, 2 and 5 of every decade, or at powers
// of ten alone when the range spans more than three decades. si writes
// thousands as "10k".
type logTicks struct{ si bool }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		return nil
	}
	wide := hi-lo > 3.2
	var ts []plot.Tick
	labelled := 0
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		dec := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * dec
			if lg(v) < lo-1e-9 || lg(v) > hi+1e-9 {
				continue
			}
			tk := plot.Tick{Value: lg(v)}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				tk.Label = t.format(v)
				labelled++
			}
			ts = append(ts, tk)
		}
	}
	if labelled < 2 { // a narrow range: label every tick
		for i := range ts {
			ts[i].Label = t.format(math.Pow(10, ts[i].Value))
		}
	}
	return ts
}

func (t logTicks) format(v float64) string {
	suffix := ""
	if t.si && v >= 1000 {
		v, suffix = v/1000, "k"
	}
	// As many decimals as the tick's decade needs: 0.05, 0.3, 1000.
	prec := max(0, int(-math.Floor(math.Log10(v)+1e-9)))
	return strconv.FormatFloat(v, 'f', prec, 64) + suffix
}

// logRange pads a log10 axis out to whole 1-2-5 steps.
func logRange(a *plot.Axis) {
	if math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) || a.Min > a.Max {
		return
	}
	a.Min, a.Max = lg(down125(math.Pow(10, a.Min))), lg(up125(math.Pow(10, a.Max)))
}

// logY labels p's y axis as a log axis; the data must be in log10 already.
func logY(p *plot.Plot, si bool) {
	logRange(&p.Y)
	p.Y.Tick.Marker = logTicks{si: si}
}

func down125(v float64) float64 {
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*dec <= v*(1+1e-9) {
			return m * dec
		}
	}
	return dec
}

func up125(v float64) float64 {
	dec := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*dec >= v*(1-1e-9) {
			return m * dec
		}
	}
	return 10 * dec
}

// clientTicks puts the x axis on a log scale with a labelled tick at every
// client count measured.
func clientTicks(p *plot.Plot, clients []int) {
	var ts plot.ConstantTicks
	for _, c := range clients {
		ts = append(ts, plot.Tick{Value: lg(float64(c)), Label: strconv.Itoa(c)})
	}
	p.X.Tick.Marker = ts
	lo, hi := float64(slices.Min(clients)), float64(slices.Max(clients))
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	p.X.Min, p.X.Max = lg(lo/1.25), lg(hi*1.25)
}
