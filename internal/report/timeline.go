package report

import (
	"bytes"
	"context"
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
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/locksim/locksim/checker"
)

// The timeline answers one question at a glance: who was inside the
// critical section when, who overlapped whom, during which fault, and why
// the lock let it happen. Time runs left to right (true time, the
// history's clock, in ms from the run's start).
//
// Rows, top to bottom: each client (its lease windows as a thin light bar,
// its failed acquire attempts as grey bars with their reason, its waits
// for the unlock message (wait: notify) as a dashed line, its stays at
// the resource as a thick bar), each node (whose token the lock key held
// there, down or paused spans, its clock offset while a clock fault acts
// on it), and the liveness probe. A fault is drawn on the rows it hit: a
// client or node fault as a band on that row, a clock fault as a stripe
// along the top of the row, a network fault as a strip along the bottom of
// each endpoint's row with its side (A, B) named; only faults that say no
// target shade every row. The first witness of an unsafe check is a red
// frame around the two clients' rows during the overlap, numbered; the
// others are counted in its label. Under Sentinel, a master's row shows
// its failover in the phases summary.md reports (timeline_failover.go).
// Labels are placed last, clear of each other and of every reference line
// (labeler).
//
// With a witness, a second panel under the full run shows the same rows
// over the witness's window: the acquires that made the two leases, the
// overlap, and the faults and node states around them.
//
// Geometry is in pixels of the PNG (96 dpi) so that the picture keeps its
// proportions: a row is rowPx high whatever the number of rows.
const (
	dpi          = 96
	figWidthPx   = 1400
	rowPx        = 60
	headerPx     = 76 // title and two subtitle lines
	legendLinePx = 24 // one line of the legend
	axisPx       = 52 // x tick labels and axis label
	labelLinePx  = 20 // one line of labels above the rows (faults, witnesses)
	maxLabelRows = 3  // strip labels stack at most this deep
	zoomTitlePx  = 34 // the zoom panel's heading
)

// px converts PNG pixels to vg lengths (points).
func px(n float64) vg.Length { return vg.Length(n * 72 / dpi) }

// Row layout, in data units (one unit is one row, about rowPx pixels).
const (
	// From the top of a row: fault labels and a clock stripe (13 px), the
	// lease bar, the section bar, and at the bottom a network fault's
	// strip and side tag (20 px).
	leaseY     = 0.24 // centre of the lease bar, above the row's centre
	leaseH     = 0.12
	sectionY   = 0.0
	sectionH   = 0.33
	rowHalf    = 0.5
	overlapPad = 0.46
	holdY      = 0.04 // a node row's key bar
	holdH      = 0.36
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
	unknownHue = color.RGBA{R: 230, G: 120, B: 0, A: 255}
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
	// One hue per kind of fault mark, so the legend's swatches are what
	// the chart draws.
	faultHue = color.RGBA{R: 255, G: 160, B: 0, A: 255}  // amber: a fault on a client or node
	linkHue  = color.RGBA{R: 120, G: 90, B: 200, A: 255} // violet: a network fault
	clockHue = color.RGBA{R: 90, G: 110, B: 140, A: 255} // slate: a clock fault
	downHue  = color.RGBA{R: 70, G: 70, B: 70, A: 255}   // a node down or paused
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

// rowKind says what a row shows.
type rowKind int

const (
	rowClient rowKind = iota
	rowNode
	rowProbe
)

// row is one lane of the chart, the same in both panels.
type row struct {
	kind  rowKind
	id    int // client or node index
	label string
}

// timeline is one run's chart, ready to be drawn in any format.
type timeline struct {
	// ctx is the run's: once it is done, laying out and drawing stop
	// where they are, and writeTo writes nothing (stopped).
	ctx      context.Context
	lanes    lanes
	overlaps []overlap
	rows     []row
	faults   []faultMark // how each fault is drawn
	// runEnd is when the run's clients stopped (its duration): a fault
	// that lasted to it lasted "to the end".
	runEnd time.Duration
	// Sentinel's failovers (checker.Failovers) as drawn on the masters'
	// rows.
	failPhases []failoverPhase
	failEvents []failoverEvent
	title      string
	subtitle   []string
	legend     []legendItem
	panels     []*panel // the full run, then the witness zoomed
	w, h       vg.Length
}

// panel is one chart of the rows over one time range.
type panel struct {
	t      *timeline
	lo, hi time.Duration
	zoom   bool
	title  string // the zoom panel's heading
	// stripLines: lines of labels above the rows (network and untargeted
	// faults, then the witness labels).
	stripLines int
	p          *plot.Plot
	labels     labeler
	// What the last drawing laid out, for the tests: the failover events
	// drawn as lines, and the witness frames.
	events []drawnEvent
	frames int
}

// drawnEvent is a failover event drawn as a line at x.
type drawnEvent struct {
	failoverEvent
	x vg.Length
}

// newTimeline lays out in's chart. When ctx is done before it is laid
// out, it returns ctx's error.
func newTimeline(ctx context.Context, in Run) (*timeline, error) {
	t := &timeline{
		ctx:      ctx,
		lanes:    readLanes(in.History, in.Setup, in.View),
		overlaps: zoomFirst(overlaps(in.Check), in.Zoom),
	}
	for i := range t.overlaps {
		t.overlaps[i].vouchedBy = t.lanes.vouchedBy(t.overlaps[i])
	}
	for _, c := range t.lanes.clients {
		t.rows = append(t.rows, row{kind: rowClient, id: c, label: fmt.Sprintf("client %d", c)})
	}
	for _, n := range t.lanes.layoutNodes(in.Setup) {
		t.rows = append(t.rows, row{kind: rowNode, id: n.Nodes[0], label: n.Label})
	}
	t.rows = append(t.rows, row{kind: rowProbe, label: "liveness probe"})
	t.runEnd = in.Setup.Duration.D()
	if t.runEnd <= 0 {
		t.runEnd = t.lanes.end
	}
	t.faults = t.faultMarks()
	if err := t.stopped(); err != nil {
		return nil, err
	}
	t.failPhases, t.failEvents = failoverLayout(checker.Failovers(in.History))

	t.title = fmt.Sprintf("%s — %s — verdict: %s", in.Scenario, in.Algorithm, strings.ToUpper(string(in.Check.Verdict)))
	if in.Incomplete {
		t.title += " (incomplete run — not a verdict)"
	}
	t.subtitle = timelineSubtitle(in, t.overlaps)
	t.legend = t.legendItems()
	t.w = px(figWidthPx)

	end := max(t.lanes.end, time.Millisecond)
	full := t.newPanel(0, end+end/100, false, "")
	t.panels = []*panel{full}
	if lo, hi, ok := t.zoomWindow(); ok {
		o := t.overlaps[0]
		what := fmt.Sprintf("client %d / client %d (%s)", o.a, o.b, o.check)
		switch {
		case o.starved():
			what = fmt.Sprintf("client %d starved while the lock was free (liveness)", o.a)
		case o.covered:
			what = fmt.Sprintf("client %d / client %d (leases overlapped, covered by fencing)", o.a, o.b)
		}
		t.panels = append(t.panels, t.newPanel(lo, hi, true,
			fmt.Sprintf("The witness zoomed: %s, %s of the run", what, fmtRange(lo, hi))))
	}
	h := headerPx + t.legendLines()*legendLinePx + 12
	for _, p := range t.panels {
		h += p.heightPx()
	}
	t.h = px(float64(h))
	for _, p := range t.panels {
		if err := p.build(); err != nil {
			return nil, err
		}
	}
	return t, t.stopped()
}

// stopped is the run's context's error once it is done: a dense run's
// chart takes seconds to lay out and draw, and an interrupt must not wait
// for it. Every loop over a run's operations or faults asks it.
func (t *timeline) stopped() error { return context.Cause(t.ctx) }

func (t *timeline) newPanel(lo, hi time.Duration, zoom bool, title string) *panel {
	p := &panel{t: t, lo: lo, hi: hi, zoom: zoom, title: title}
	n := 0
	for _, f := range t.faults {
		if f.strip && f.visible(lo, hi) {
			n++
		}
	}
	p.stripLines = min(n, maxLabelRows)
	if len(t.overlaps) > 0 {
		p.stripLines++
	}
	return p
}

// heightPx is the panel's share of the PNG: its heading, the rows, the
// lines of labels above them and the axis.
func (p *panel) heightPx() int {
	h := rowPx*len(p.t.rows) + labelLinePx*p.stripLines + axisPx
	if p.zoom {
		h += zoomTitlePx
	}
	return h
}

func (p *panel) build() error {
	pl := plot.New()
	pl.BackgroundColor = color.White
	pl.X.Label.Text = "true time since the run's start (ms)"
	pl.X.Label.TextStyle.Font = textStyle(12, false, nil).Font
	pl.X.Tick.Label.Font = textStyle(11, false, nil).Font
	pl.X.Tick.Marker = plot.TickerFunc(msTicks)
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.Y.Tick.Label.Font = textStyle(12.5, false, nil).Font
	pl.Y.Tick.Length = 0
	pl.Y.Tick.Marker = plot.ConstantTicks(p.rowTicks())
	pl.Add(rowBands{p}, clusterMarks{p}, failoverMarks{p}, faultDraw{p}, clientBars{p}, nodeBars{p}, probeBars{p}, rejectedMarks{p}, overlapMarks{p}, labelsLast{p})
	pl.X.Min, pl.X.Max = ms(p.lo), ms(p.hi)
	pl.Y.Min = -rowHalf
	pl.Y.Max = float64(len(p.t.rows)) - rowHalf + float64(p.stripLines)*labelLinePx/rowPx
	p.p = pl
	return nil
}

// zoomFirst moves the first witness of check to the front of os, which
// the zoom shows; os is unchanged when check is empty or has none.
func zoomFirst(os []overlap, check string) []overlap {
	i := slices.IndexFunc(os, func(o overlap) bool { return o.check == check })
	if check == "" || i <= 0 {
		return os
	}
	out := append([]overlap{os[i]}, os[:i]...)
	return append(out, os[i+1:]...)
}

// zoomWindow is the first witness's window with its context: from the
// sending of the earlier of the two acquires that made the overlapping
// leases (or the earlier interval's start) to the end of the overlap,
// padded on both sides. A window longer than half the run starts at the
// later acquire instead; one that is most of the run is not zoomed.
func (t *timeline) zoomWindow() (lo, hi time.Duration, ok bool) {
	if len(t.overlaps) == 0 {
		return 0, 0, false
	}
	o := t.overlaps[0]
	end := max(t.lanes.end, time.Millisecond)
	froms := []time.Duration{o.from}
	for _, c := range []int{o.a, o.b} {
		// the lease of c that was valid when the overlap began, or else
		// the end of its last lease before it (a lease that expired
		// during a pause)
		var last time.Duration = -1
		for _, w := range t.lanes.leases {
			if w.Client != c || w.Start > o.start {
				continue
			}
			if w.End >= o.start {
				if at, ok := t.lanes.leaseFrom[leaseKey{c, w.Token}]; ok {
					froms = append(froms, at)
				}
				last = -1
				break
			}
			last = max(last, w.End)
		}
		if last >= 0 {
			froms = append(froms, last)
		}
	}
	lo, hi = froms[0], o.end
	for _, f := range froms {
		lo = min(lo, f)
	}
	if hi-lo > end/2 {
		lo = o.start
		for _, f := range froms {
			if f <= o.start && o.start-f < end/2 {
				lo = min(lo, f)
			}
		}
	}
	pad := max((hi-lo)/6, time.Millisecond)
	lo, hi = max(lo-pad, 0), min(hi+pad, end+end/100)
	if hi-lo > end*7/10 {
		return 0, 0, false
	}
	return lo, hi, true
}

// msTicks labels about a dozen round instants, so that a reader can read a
// time off the chart without counting minor ticks.
func msTicks(lo, hi float64) []plot.Tick {
	step := 0.01
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
	for i := math.Ceil(lo / step); i*step <= hi; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)})
		if minor := v + step/2; minor <= hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}

// rowY is the centre of row r, counted from the top (the probe row is last).
func (t *timeline) rowY(r int) float64 { return float64(len(t.rows) - 1 - r) }

// rowOf is the index of the row of that kind and id, -1 when none.
func (t *timeline) rowOf(kind rowKind, id int) int {
	for i, r := range t.rows {
		if r.kind == kind && (kind == rowProbe || r.id == id) {
			return i
		}
	}
	return -1
}

func (t *timeline) clientRow(client int) int { return t.rowOf(rowClient, client) }

func (p *panel) rowTicks() []plot.Tick {
	var ticks []plot.Tick
	for i, r := range p.t.rows {
		ticks = append(ticks, plot.Tick{Value: p.t.rowY(i), Label: r.label})
	}
	return ticks
}

// writeTo renders the chart as "png" or "svg". A drawing the run's
// context stopped midway is not written: it returns the context's error,
// having written nothing to w.
func (t *timeline) writeTo(w io.Writer, format string) error {
	switch format {
	case "png":
		return t.writePNG(w)
	case "svg":
		cw := vgsvg.New(t.w, t.h)
		t.draw(draw.New(cw))
		if err := t.stopped(); err != nil {
			return err
		}
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

// draw lays out the header, the panels and the legend on c.
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
	y := c.Max.Y - px(headerPx)
	for _, p := range t.panels {
		if t.stopped() != nil {
			return
		}
		h := px(float64(p.heightPx()))
		area := draw.Crop(c, px(10), -px(24), y-h-c.Min.Y, y-c.Max.Y)
		if p.zoom {
			head := textStyle(14, true, color.Black)
			head.YAlign = draw.YTop
			c.StrokeLine2(draw.LineStyle{Color: rowLine, Width: px(2)}, c.Min.X+px(10), y-px(4), c.Max.X-px(10), y-px(4))
			c.FillText(head, vg.Point{X: c.Min.X + px(14), Y: y - px(10)}, p.title)
			area = draw.Crop(area, 0, 0, 0, -px(zoomTitlePx))
		}
		p.labels, p.events, p.frames = labeler{}, nil, 0
		p.p.Draw(area)
		y -= h
	}
	t.drawLegend(draw.Crop(c, px(10), -px(10), 0, -(c.Max.Y - c.Min.Y - px(float64(t.legendLines()*legendLinePx+6)))))
}

// ms is a history instant on the chart's axis.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
