package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/locksim/locksim/checker"
)

// The timeline answers one question at a glance: who was inside the
// critical section when, who overlapped whom, and during which fault. Time
// runs left to right (true time, the history's clock); each client has a
// row with its lease windows as a thin light bar on top and its stays at
// the resource as a thick bar below; faults are shaded bands across every
// row; a witness of an unsafe check is a red frame around the two clients'
// rows during the overlap.
//
// Geometry is in pixels of the PNG (96 dpi) so that the picture keeps its
// proportions: a row is rowPx high whatever the number of clients.
const (
	dpi          = 96
	figWidthPx   = 1400
	rowPx        = 60
	headerPx     = 76 // title and two subtitle lines
	legendPx     = 46 // up to two lines of legend
	axisPx       = 52 // x tick labels and axis label
	labelLinePx  = 18 // one line of labels above the rows (faults, witnesses)
	maxLabelRows = 3  // fault labels stack at most this deep
)

// px converts PNG pixels to vg lengths (points).
func px(n float64) vg.Length { return vg.Length(n * 72 / dpi) }

// Row layout, in data units (one unit is one row, about rowPx pixels).
const (
	leaseY     = 0.26 // centre of the lease bar, above the row's centre
	leaseH     = 0.12
	sectionY   = -0.06
	sectionH   = 0.40
	rowHalf    = 0.5
	overlapPad = 0.46
)

var (
	red = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	// coveredHue frames leases that overlapped while fencing kept the
	// data safe: a finding, not a failure.
	coveredHue = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	white      = color.RGBA{R: 255, G: 255, B: 255, A: 255}
	grey       = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	lightGrey  = color.RGBA{R: 246, G: 246, B: 246, A: 255}
	rowLine    = color.RGBA{R: 220, G: 220, B: 220, A: 255}
	probeOK    = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	probeBad   = color.RGBA{R: 190, G: 30, B: 30, A: 255} // a deadlock, not a witness
	// Client hues avoid red and amber, which mean violation and fault.
	clientHues = []color.RGBA{
		{R: 31, G: 119, B: 180, A: 255},  // blue
		{R: 44, G: 160, B: 44, A: 255},   // green
		{R: 148, G: 103, B: 189, A: 255}, // purple
		{R: 23, G: 190, B: 207, A: 255},  // cyan
		{R: 140, G: 86, B: 75, A: 255},   // brown
		{R: 227, G: 119, B: 194, A: 255}, // pink
		{R: 127, G: 127, B: 127, A: 255}, // grey
		{R: 188, G: 189, B: 34, A: 255},  // olive
	}
	faultHues = []color.RGBA{
		{R: 255, G: 160, B: 0, A: 255},   // amber
		{R: 120, G: 90, B: 200, A: 255},  // violet
		{R: 90, G: 110, B: 140, A: 255},  // slate
		{R: 200, G: 120, B: 60, A: 255},  // rust
		{R: 160, G: 160, B: 40, A: 255},  // olive
		{R: 210, G: 100, B: 150, A: 255}, // rose
	}
)

func clientHue(client int) color.RGBA {
	if client < 0 {
		return grey
	}
	return clientHues[client%len(clientHues)]
}

// tint mixes c with white: f = 0 is c, f = 1 is white.
func tint(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 255}
}

// shade mixes c with black: f = 0 is c, f = 1 is black.
func shade(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) * (1 - f)) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 255}
}

// alpha returns c with opacity a, premultiplied as color.RGBA requires.
func alpha(c color.RGBA, a float64) color.RGBA {
	m := func(v uint8) uint8 { return uint8(float64(v) * a) }
	return color.RGBA{R: m(c.R), G: m(c.G), B: m(c.B), A: uint8(255 * a)}
}

func textStyle(size float64, bold bool, c color.Color) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = stdfont.WeightBold
	}
	return text.Style{Color: c, Font: font.From(f, px(size)), Handler: plot.DefaultTextHandler}
}

// timeline is one run's chart, ready to be drawn in any format.
type timeline struct {
	lanes      lanes
	overlaps   []overlap
	title      string
	subtitle   []string
	legend     []legendItem
	p          *plot.Plot
	rows       int // client rows plus the probe row
	labelRows  int // lines of fault labels
	witnessRow int // 1 when a line of witness labels tops the chart
	w, h       vg.Length
}

func newTimeline(in Run) (*timeline, error) {
	t := &timeline{
		lanes:    readLanes(in.Sim.History, in.Sim.Config.Clients),
		overlaps: overlaps(in.Check),
	}
	t.rows = len(t.lanes.clients) + 1
	t.labelRows = min(len(t.lanes.faults), maxLabelRows)
	if len(t.overlaps) > 0 {
		t.witnessRow = 1
	}
	t.title = fmt.Sprintf("%s — %s — verdict: %s", in.Scenario, in.Algorithm, strings.ToUpper(string(in.Check.Verdict)))
	if in.Sim.Incomplete {
		t.title += " (incomplete run — not a verdict)"
	}
	t.subtitle = timelineSubtitle(in, t.overlaps)
	t.legend = t.legendItems()
	t.w = px(figWidthPx)
	t.h = px(float64(timelineHeightPx(t.rows, t.labelRows+t.witnessRow)))

	p := plot.New()
	p.BackgroundColor = color.White
	p.X.Label.Text = "true time since the run's start (ms)"
	p.X.Label.TextStyle.Font = textStyle(12, false, nil).Font
	p.X.Tick.Label.Font = textStyle(11, false, nil).Font
	p.X.Tick.Marker = plot.TickerFunc(msTicks)
	p.X.Padding, p.Y.Padding = 0, 0
	p.Y.Tick.Label.Font = textStyle(12.5, false, nil).Font
	p.Y.Tick.Length = 0
	p.Y.Tick.Marker = plot.ConstantTicks(t.rowTicks())

	marks, err := t.marks()
	if err != nil {
		return nil, err
	}
	p.Add(rowBands{t}, faultBands{t}, bars{t}, probeBars{t})
	p.Add(marks...)
	p.Add(overlapMarks{t})

	end := float64(max(t.lanes.end, time.Millisecond)) / 1e6
	p.X.Min, p.X.Max = 0, end*1.01
	p.Y.Min = -rowHalf
	p.Y.Max = float64(t.rows) - rowHalf + float64(t.labelRows+t.witnessRow)*labelLinePx/rowPx*1.1
	t.p = p
	return t, nil
}

// timelineHeightPx is the PNG's height: fixed decorations, the rows, and
// the lines of labels above them.
func timelineHeightPx(rows, labelLines int) int {
	return headerPx + legendPx + axisPx + rowPx*rows + labelLinePx*labelLines + 10
}

// msTicks labels about a dozen round instants, so that a reader can read a
// time off the chart without counting minor ticks.
func msTicks(lo, hi float64) []plot.Tick {
	step := 1.0
	for (hi-lo)/step > 15 {
		switch {
		case (hi-lo)/(step*2) <= 15:
			step *= 2
		case (hi-lo)/(step*5) <= 15:
			step *= 5
		default:
			step *= 10
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		if minor := v + step/2; minor <= hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}

// rowY is the centre of row r, counted from the top (the probe row is last).
func (t *timeline) rowY(r int) float64 { return float64(t.rows - 1 - r) }

func (t *timeline) clientRow(client int) int {
	for i, c := range t.lanes.clients {
		if c == client {
			return i
		}
	}
	return -1
}

func (t *timeline) rowTicks() []plot.Tick {
	var ticks []plot.Tick
	for i, c := range t.lanes.clients {
		ticks = append(ticks, plot.Tick{Value: t.rowY(i), Label: fmt.Sprintf("client %d", c)})
	}
	return append(ticks, plot.Tick{Value: t.rowY(t.rows - 1), Label: "liveness probe"})
}

// writeTo renders the chart as "png" or "svg".
func (t *timeline) writeTo(w io.Writer, format string) error {
	switch format {
	case "png":
		cw := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(t.w, t.h), vgimg.UseDPI(dpi))}
		t.draw(draw.New(cw))
		_, err := cw.WriteTo(w)
		return err
	case "svg":
		cw := vgsvg.New(t.w, t.h)
		t.draw(draw.New(cw))
		var buf bytes.Buffer
		if _, err := cw.WriteTo(&buf); err != nil {
			return err
		}
		// The layout was measured with Liberation Sans, which few
		// machines outside Linux have; Arial has the same metrics, so
		// naming it as a fallback keeps the labels where they were
		// measured. (Embedding the fonts instead costs about 1 MB.)
		_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")))
		return err
	}
	return fmt.Errorf("timeline: unknown format %q", format)
}

// draw lays out the header, the plot and the legend on c.
func (t *timeline) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	top := c.Max.Y - px(8)
	title := textStyle(18, true, color.Black)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	c.FillText(title, vg.Point{X: c.Center().X, Y: top}, t.title)
	sub := textStyle(12.5, false, color.RGBA{R: 50, G: 50, B: 50, A: 255})
	sub.XAlign, sub.YAlign = draw.XCenter, draw.YTop
	for i, s := range t.subtitle {
		c.FillText(sub, vg.Point{X: c.Center().X, Y: top - px(28+19*float64(i))}, s)
	}
	plotArea := draw.Crop(c, px(10), -px(24), px(legendPx), -px(headerPx))
	t.p.Draw(plotArea)
	t.drawLegend(draw.Crop(c, px(10), -px(10), 0, -(c.Max.Y - c.Min.Y - px(legendPx))))
}

// rowBands shades every other row and rules the rows off, so that a bar
// reads as belonging to its client's label.
type rowBands struct{ t *timeline }

func (b rowBands) Plot(c draw.Canvas, p *plot.Plot) {
	_, ty := p.Transforms(&c)
	for r := 0; r < b.t.rows; r++ {
		y0, y1 := ty(b.t.rowY(r)-rowHalf), ty(b.t.rowY(r)+rowHalf)
		if r%2 == 1 {
			c.SetColor(lightGrey)
			c.Fill(rect(c.Min.X, y0, c.Max.X, y1))
		}
		c.StrokeLine2(draw.LineStyle{Color: rowLine, Width: px(1)}, c.Min.X, y0, c.Max.X, y0)
	}
	top := ty(b.t.rowY(0) + rowHalf)
	c.StrokeLine2(draw.LineStyle{Color: rowLine, Width: px(1)}, c.Min.X, top, c.Max.X, top)
}

// faultBands shades each fault's window across every row and names it at
// the top. A fault that started and stopped at once (a crash, a jump) is a
// dashed line; labels stack in up to maxLabelRows lines so that they do not
// overprint each other.
type faultBands struct{ t *timeline }

func (b faultBands) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	bottom := ty(-rowHalf)
	labelTop := c.Max.Y - px(3) - px(labelLinePx*float64(b.t.witnessRow))
	ends := make([]vg.Length, b.t.labelRows) // right end of the last label per line
	for i, f := range b.t.lanes.faults {
		hue := faultHues[i%len(faultHues)]
		x0, x1 := tx(ms(f.Start)), tx(ms(f.End))
		if x1-x0 < px(2) {
			c.StrokeLine2(draw.LineStyle{Color: hue, Width: px(2), Dashes: []vg.Length{px(5), px(3)}}, x0, bottom, x0, c.Max.Y)
		} else {
			c.SetColor(alpha(hue, 0.16))
			c.Fill(rect(x0, bottom, x1, c.Max.Y))
			edge := draw.LineStyle{Color: alpha(hue, 0.7), Width: px(1)}
			c.StrokeLine2(edge, x0, bottom, x0, c.Max.Y)
			c.StrokeLine2(edge, x1, bottom, x1, c.Max.Y)
		}
		if len(ends) == 0 {
			continue
		}
		sty := textStyle(11.5, true, shade(hue, 0.35))
		label := faultLabel(f)
		w := sty.Width(label)
		x := max(x0+px(3), c.Min.X+px(2))
		if x+w > c.Max.X {
			x = c.Max.X - w - px(2)
		}
		line := 0
		for j := range ends { // the first line this label does not overprint, else the emptiest
			if ends[j] < x {
				line = j
				break
			}
			if ends[j] < ends[line] {
				line = j
			}
		}
		ends[line] = x + w + px(8)
		sty.YAlign = draw.YTop
		pt := vg.Point{X: x, Y: labelTop - px(labelLinePx*float64(line))}
		labelBox(c, sty, pt, label, alpha(white, 0.8))
	}
}

// faultLabel is "F<id> <kind and target>": the fault's printable value up
// to its schedule, which summary.md gives in full.
func faultLabel(f checker.FaultWindow) string {
	desc, _, _ := strings.Cut(f.Desc, " (")
	return fmt.Sprintf("F%d %s", f.ID, desc)
}

// bars draws each client's leases (thin, light) and sections (thick).
type bars struct{ t *timeline }

func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for r, client := range b.t.lanes.clients {
		lane := b.t.lanes.byClient[client]
		hue := clientHue(client)
		y := b.t.rowY(r)
		for _, s := range lane.leases {
			drawSpan(c, tx, ty, s, y+leaseY, leaseH, tint(hue, 0.55), tint(hue, 0.2))
		}
		for _, s := range lane.sections {
			fill := hue
			if s.read {
				fill = tint(hue, 0.8) // shared: outlined rather than solid
			}
			drawSpan(c, tx, ty, s, y+sectionY, sectionH, fill, hue)
		}
	}
}

// drawSpan draws one bar at least 3 px wide (a fenced section of one write
// has no length) and, when it never ended, an arrow head at its right end.
func drawSpan(c draw.Canvas, tx, ty func(float64) vg.Length, s span, y, h float64, fill, edge color.Color) {
	x0, x1 := tx(ms(s.start)), tx(ms(s.end))
	if x1-x0 < px(3) {
		mid := (x0 + x1) / 2
		x0, x1 = mid-px(1.5), mid+px(1.5)
	}
	y0, y1 := ty(y-h/2), ty(y+h/2)
	c.SetColor(fill)
	c.Fill(rect(x0, y0, x1, y1))
	c.SetLineStyle(draw.LineStyle{Color: edge, Width: px(1)})
	c.Stroke(rect(x0, y0, x1, y1))
	if s.open {
		var a vg.Path
		a.Move(vg.Point{X: x1, Y: y0 - px(3)})
		a.Line(vg.Point{X: x1 + px(7), Y: (y0 + y1) / 2})
		a.Line(vg.Point{X: x1, Y: y1 + px(3)})
		a.Close()
		c.SetColor(edge)
		c.Fill(a)
	}
}

// probeBars draws the liveness probe: green when it acquired, red when it
// could not (a deadlock), with its outcome written beside it.
type probeBars struct{ t *timeline }

func (b probeBars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	y := b.t.rowY(b.t.rows - 1)
	sty := textStyle(11, false, color.Black)
	sty.YAlign = draw.YCenter
	if len(b.t.lanes.probes) == 0 {
		c.FillText(sty, vg.Point{X: c.Min.X + px(6), Y: ty(y)}, "no liveness probe in this run")
		return
	}
	for i, op := range b.t.lanes.probes {
		hue := probeOK
		what := fmt.Sprintf("acquired %s in %s", op.Key, fmtMS(op.Return-op.Call))
		if op.Outcome != "ok" {
			hue = probeBad
			what = fmt.Sprintf("%s: %s not acquired (%s)", op.Outcome, op.Key, fmtMS(op.Return-op.Call))
		}
		drawSpan(c, tx, ty, span{start: op.Call, end: op.Return}, y, sectionH, tint(hue, 0.3), hue)
		if i < 3 {
			x := tx(ms(op.Return)) + px(5)
			if w := sty.Width(what); x+w > c.Max.X {
				x = tx(ms(op.Call)) - w - px(5)
			}
			c.FillText(sty, vg.Point{X: x, Y: ty(y)}, what)
		}
	}
}

// marks are the point events: refused writes (red x), refused acquires
// (grey rings) and acquires of unknown outcome (grey triangles).
func (t *timeline) marks() ([]plot.Plotter, error) {
	var rejected, failed, unknown plotter.XYs
	for r, client := range t.lanes.clients {
		lane := t.lanes.byClient[client]
		y := t.rowY(r)
		for _, at := range lane.rejected {
			rejected = append(rejected, plotter.XY{X: ms(at), Y: y + sectionY})
		}
		for _, at := range lane.failed {
			failed = append(failed, plotter.XY{X: ms(at), Y: y + leaseY})
		}
		for _, at := range lane.unknown {
			unknown = append(unknown, plotter.XY{X: ms(at), Y: y + leaseY})
		}
	}
	var out []plot.Plotter
	for _, m := range []struct {
		xys   plotter.XYs
		style draw.GlyphStyle
	}{
		{failed, failedGlyph},
		{unknown, unknownGlyph},
		{rejected, rejectedGlyph},
	} {
		if len(m.xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(m.xys)
		if err != nil {
			return nil, fmt.Errorf("timeline marks: %w", err)
		}
		s.GlyphStyle = m.style
		out = append(out, s)
	}
	return out, nil
}

var (
	failedGlyph   = draw.GlyphStyle{Color: grey, Radius: px(3), Shape: draw.RingGlyph{}}
	unknownGlyph  = draw.GlyphStyle{Color: color.RGBA{R: 230, G: 120, B: 0, A: 255}, Radius: px(4), Shape: draw.PyramidGlyph{}}
	rejectedGlyph = draw.GlyphStyle{Color: red, Radius: px(6), Shape: thickCross{}}
)

// thickCross is draw.CrossGlyph with a line heavy enough to read as a mark
// on top of a coloured bar.
type thickCross struct{}

func (thickCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: px(2.5)})
	r := sty.Radius * 0.8
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	c.Stroke(p)
}

// overlapMarks frames each witness of an unsafe check: a red box over the
// two clients' rows during the overlap, labelled with who overlapped whom.
// A witness whose intervals do not overlap (a fencing token that went
// backwards) is a dashed box from the one's start to the other's.
type overlapMarks struct{ t *timeline }

const maxFramed = 20 // witnesses per run are capped by the checker anyway

func (m overlapMarks) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	labelled := map[[2]int]bool{}
	var spans [][2]vg.Length // labels drawn so far
	for i, o := range m.t.overlaps {
		if i == maxFramed {
			break
		}
		ra, rb := m.t.clientRow(o.a), m.t.clientRow(o.b)
		if ra < 0 || rb < 0 {
			continue
		}
		upper, lower := min(ra, rb), max(ra, rb)
		yTop, yBot := ty(m.t.rowY(upper)+overlapPad), ty(m.t.rowY(lower)-overlapPad)
		x0, x1 := tx(ms(o.start)), tx(ms(o.end))
		if x1-x0 < px(4) {
			mid := (x0 + x1) / 2
			x0, x1 = mid-px(2), mid+px(2)
		}
		box := rect(x0, yBot, x1, yTop)
		hue := red
		if o.covered {
			hue = coveredHue
		}
		line := draw.LineStyle{Color: hue, Width: px(2.5)}
		if o.disjoint {
			line.Dashes = []vg.Length{px(6), px(3)}
		} else {
			c.SetColor(alpha(hue, 0.12))
			c.Fill(box)
		}
		c.SetLineStyle(line)
		c.Stroke(box)

		pair := [2]int{min(o.a, o.b), max(o.a, o.b)}
		if labelled[pair] {
			continue
		}
		label := fmt.Sprintf("overlap: client %d / client %d (%s)", o.a, o.b, o.check)
		switch {
		case o.covered:
			label = fmt.Sprintf("leases overlapped, covered by fencing: client %d / client %d", o.a, o.b)
		case o.disjoint:
			label = fmt.Sprintf("%s: client %d / client %d", o.check, o.a, o.b)
		}
		// The label tops the chart, where no bar can be hidden under it,
		// and a line ties it to its frame. One that would overprint an
		// earlier label is left out: the frame remains, and summary.md
		// lists every witness.
		sty := textStyle(12.5, true, hue)
		sty.YAlign = draw.YTop
		w := sty.Width(label)
		x := min(max((x0+x1)/2-w/2, c.Min.X+px(2)), c.Max.X-w-px(2))
		if slices.ContainsFunc(spans, func(s [2]vg.Length) bool { return x < s[1] && x+w > s[0] }) {
			continue
		}
		labelled[pair] = true
		spans = append(spans, [2]vg.Length{x - px(10), x + w + px(10)})
		y := c.Max.Y - px(3)
		h := sty.Height(label)
		c.StrokeLine2(draw.LineStyle{Color: hue, Width: px(1.5), Dashes: []vg.Length{px(4), px(2)}}, (x0+x1)/2, y-h, (x0+x1)/2, yTop)
		labelBox(c, sty, vg.Point{X: x, Y: y}, label, alpha(white, 0.9))
	}
}

// labelBox writes txt on a light box so that it stays legible over bars
// and bands.
func labelBox(c draw.Canvas, sty text.Style, pt vg.Point, txt string, bg color.Color) {
	r := sty.Rectangle(txt)
	pad := px(2)
	c.SetColor(bg)
	c.Fill(rect(pt.X+r.Min.X-pad, pt.Y+r.Min.Y-pad, pt.X+r.Max.X+pad, pt.Y+r.Max.Y+pad))
	c.FillText(sty, pt, txt)
}

func rect(x0, y0, x1, y1 vg.Length) vg.Path {
	return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}.Path()
}

// ms is a history instant on the chart's axis.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// legendItem is one entry of the legend strip under the chart.
type legendItem struct {
	label string
	thumb func(c draw.Canvas, box vg.Rectangle)
}

// legendItems explains only the marks this chart uses.
func (t *timeline) legendItems() []legendItem {
	hue := clientHue(0)
	bar := func(h float64, fill, edge color.Color) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			hh := px(h / 2)
			c.SetColor(fill)
			c.Fill(rect(b.Min.X, mid-hh, b.Max.X, mid+hh))
			c.SetLineStyle(draw.LineStyle{Color: edge, Width: px(1)})
			c.Stroke(rect(b.Min.X, mid-hh, b.Max.X, mid+hh))
		}
	}
	glyph := func(g draw.GlyphStyle) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			c.DrawGlyphNoClip(g, vg.Point{X: (b.Min.X + b.Max.X) / 2, Y: (b.Min.Y + b.Max.Y) / 2})
		}
	}
	section := "critical section at the resource (enter → exit)"
	if t.lanes.fenced {
		section = "critical section at the resource (first → last accepted write)"
	}
	items := []legendItem{
		{"lease claimed (acquire → release or expiry)", bar(7, tint(hue, 0.55), tint(hue, 0.2))},
		{section, bar(16, hue, hue)},
	}
	var rejected, failed, unknown, read, open bool
	for _, l := range t.lanes.byClient {
		rejected = rejected || len(l.rejected) > 0
		failed = failed || len(l.failed) > 0
		unknown = unknown || len(l.unknown) > 0
		for _, s := range l.sections {
			read = read || s.read
			open = open || s.open
		}
		for _, s := range l.leases {
			open = open || s.open
		}
	}
	if read {
		items = append(items, legendItem{"read section (shared)", bar(16, tint(hue, 0.8), hue)})
	}
	if rejected {
		items = append(items, legendItem{"write rejected by the resource", glyph(rejectedGlyph)})
	}
	if failed {
		items = append(items, legendItem{"acquire refused", glyph(failedGlyph)})
	}
	if unknown {
		items = append(items, legendItem{"acquire outcome unknown", glyph(unknownGlyph)})
	}
	if open {
		items = append(items, legendItem{"never ended (drawn to the end)", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			var a vg.Path
			a.Move(vg.Point{X: b.Min.X + px(6), Y: mid - px(7)})
			a.Line(vg.Point{X: b.Min.X + px(16), Y: mid})
			a.Line(vg.Point{X: b.Min.X + px(6), Y: mid + px(7)})
			a.Close()
			c.SetColor(hue)
			c.Fill(a)
		}})
	}
	if len(t.lanes.faults) > 0 {
		items = append(items, legendItem{"fault window (F<id>, see summary.md)", func(c draw.Canvas, b vg.Rectangle) {
			c.SetColor(alpha(faultHues[0], 0.25))
			c.Fill(b.Path())
			c.SetLineStyle(draw.LineStyle{Color: alpha(faultHues[0], 0.7), Width: px(1)})
			c.Stroke(b.Path())
		}})
	}
	for _, kind := range []struct {
		covered bool
		label   string
		hue     color.RGBA
	}{{false, "witness of an unsafe check", red}, {true, "leases overlapped; covered by fencing", coveredHue}} {
		if !slices.ContainsFunc(t.overlaps, func(o overlap) bool { return o.covered == kind.covered }) {
			continue
		}
		items = append(items, legendItem{kind.label, func(c draw.Canvas, b vg.Rectangle) {
			c.SetColor(alpha(kind.hue, 0.12))
			c.Fill(b.Path())
			c.SetLineStyle(draw.LineStyle{Color: kind.hue, Width: px(2.5)})
			c.Stroke(b.Path())
		}})
	}
	return items
}

// drawLegend lays the items out left to right, wrapping onto a second line.
func (t *timeline) drawLegend(c draw.Canvas) {
	sty := textStyle(11.5, false, color.Black)
	sty.YAlign = draw.YCenter
	const thumbW, thumbH, gap = 30, 16, 22
	x, y := c.Min.X, c.Max.Y-px(thumbH/2+3)
	for _, it := range t.legend {
		w := px(thumbW+6) + sty.Width(it.label)*1.08 // slack for a wider fallback font in the SVG
		if x > c.Min.X && x+w > c.Max.X {
			x, y = c.Min.X, y-px(thumbH+6)
		}
		it.thumb(c, vg.Rectangle{Min: vg.Point{X: x, Y: y - px(thumbH/2)}, Max: vg.Point{X: x + px(thumbW), Y: y + px(thumbH/2)}})
		c.FillText(sty, vg.Point{X: x + px(thumbW+6), Y: y}, it.label)
		x += w + px(gap)
	}
}

// timelineSubtitle says what the reader should find in the picture: the
// expectation, each check's verdict, the set-up, and the first witness in
// words.
func timelineSubtitle(in Run, ovs []overlap) []string {
	var checks []string
	for _, c := range in.Check.Checks {
		checks = append(checks, fmt.Sprintf("%s %s", c.Name, c.Verdict))
	}
	first := fmt.Sprintf("%s · %s · %s", expectationPhrase(in), strings.Join(checks, ", "), setup(in.Sim.Config))
	lines := []string{first}
	if len(ovs) > 0 {
		o := ovs[0]
		s := fmt.Sprintf("first witness (%s): client %d and client %d, %s", o.check, o.a, o.b, fmtRange(o.start, o.end))
		if o.covered {
			s = fmt.Sprintf("leases overlapped; covered by fencing: client %d and client %d, %s", o.a, o.b, fmtRange(o.start, o.end))
		}
		var fs []string
		for _, f := range o.faults {
			fs = append(fs, faultLabel(f))
		}
		if len(fs) > 0 {
			s += ", around " + strings.Join(fs, ", ")
		}
		lines = append(lines, s)
	}
	return lines
}
