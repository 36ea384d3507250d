package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// rowBands shades every other row and rules the rows off, so that a bar
// reads as belonging to its row's label; a heavier rule parts the clients
// from the nodes.
type rowBands struct{ p *panel }

func (b rowBands) Plot(c draw.Canvas, pl *plot.Plot) {
	t := b.p.t
	_, ty := pl.Transforms(&c)
	for r := range t.rows {
		y0, y1 := ty(t.rowY(r)-rowHalf), ty(t.rowY(r)+rowHalf)
		if r%2 == 1 {
			c.SetColor(lightGrey)
			c.Fill(rect(c.Min.X, y0, c.Max.X, y1))
		}
		line := draw.LineStyle{Color: rowLine, Width: px(1)}
		if r > 0 && t.rows[r-1].kind != t.rows[r].kind {
			line = draw.LineStyle{Color: grey, Width: px(1.5)}
		}
		c.StrokeLine2(line, c.Min.X, y1, c.Max.X, y1)
		b.p.labels.line(c.Min.X, y1, c.Max.X, y1)
	}
	top := ty(t.rowY(0) + rowHalf)
	c.StrokeLine2(draw.LineStyle{Color: rowLine, Width: px(1)}, c.Min.X, top, c.Max.X, top)
	b.p.labels.line(c.Min.X, top, c.Max.X, top)
}

// clientBars draws each client's leases (thin, light), failed acquire
// attempts (grey, with their reason), waits for the unlock message (a
// dashed line between attempts) and sections (thick).
type clientBars struct{ p *panel }

func (b clientBars) Plot(c draw.Canvas, pl *plot.Plot) {
	t := b.p.t
	tx, ty := pl.Transforms(&c)
	for r, rw := range t.rows {
		if rw.kind != rowClient || t.stopped() != nil {
			continue
		}
		lane := t.lanes.byClient[rw.id]
		hue := clientHue(rw.id)
		y := t.rowY(r)
		// Reasons go beside their bars only while the row is not crowded
		// with attempts; summary.md counts them all.
		shown := 0
		for _, f := range lane.failed {
			if f.End >= b.p.lo && f.Start <= b.p.hi {
				shown++
			}
		}
		for _, w := range lane.waits {
			drawWait(c, tx, ty, w, y+leaseY, hue)
		}
		for _, f := range lane.failed {
			if t.stopped() != nil {
				return
			}
			fill, edge := tint(grey, 0.55), grey
			if f.Outcome != "fail" {
				fill, edge = tint(unknownHue, 0.5), unknownHue
			}
			x0, x1, ok := xSpan(c, tx, f.Start, f.End, px(3))
			if !ok {
				continue
			}
			drawBar(c, x0, x1, ty(y+leaseY-leaseH/2), ty(y+leaseY+leaseH/2), fill, edge)
			sty := textStyle(10, false, shade(edge, 0.3))
			sty.YAlign = draw.YCenter
			words := f.Words()
			at := []vg.Point{{X: x0 + px(3), Y: ty(y + leaseY)}}
			if w := sty.Width(words); x1-x0 < w+px(6) {
				if shown > maxBesideReasons {
					continue
				}
				at = []vg.Point{{X: x1 + px(3), Y: ty(y + leaseY)}, {X: x0 - w - px(3), Y: ty(y + leaseY)}}
			}
			b.p.labels.put(c, sty, words, at...)
		}
		for _, a := range lane.acquires {
			if t.stopped() != nil {
				return
			}
			drawAttempt(c, tx, ty, a, y+leaseY, hue)
		}
		for _, s := range lane.leases {
			drawSpan(c, tx, ty, s, y+leaseY, leaseH, tint(hue, 0.55), tint(hue, 0.2))
		}
		for _, x := range lane.lapses {
			x0, x1, ok := xSpan(c, tx, x.Start, x.End, px(2))
			if !ok {
				continue
			}
			drawLapse(c, x0, x1, ty(y+leaseY-leaseH/2), ty(y+leaseY+leaseH/2))
		}
		for _, e := range lane.extends {
			if e.at < b.p.lo || e.at > b.p.hi {
				continue
			}
			drawExtend(c, tx(ms(e.at)), ty(y+leaseY), e.ok, hue)
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

// maxBesideReasons is how many failed attempts a row may have in a panel
// for their reasons to be written beside their bars.
const maxBesideReasons = 8

// nodeBars draws each node: whose token the key held there (in that
// client's hue, faded for an attempt that failed; a key with no TTL says
// so), and when the node was down or paused; a row with nothing to draw
// says why. Its clock offset is a fault mark (faultDraw).
type nodeBars struct{ p *panel }

func (b nodeBars) Plot(c draw.Canvas, pl *plot.Plot) {
	t := b.p.t
	tx, ty := pl.Transforms(&c)
	for _, nr := range t.lanes.nodeRows {
		if t.stopped() != nil {
			return
		}
		r := t.rowOf(rowNode, nr.Nodes[0])
		if r < 0 {
			continue
		}
		y := t.rowY(r)
		if nr.Empty != "" {
			sty := textStyle(11, false, grey)
			sty.YAlign = draw.YCenter
			// at the row's start, else further right, clear of the
			// faults' lines and labels
			var at []vg.Point
			for _, dx := range []float64{6, 30, 60, 120, 240, 480} {
				for _, ly := range []float64{y + holdY, y - 0.2} {
					at = append(at, vg.Point{X: c.Min.X + px(dx), Y: ty(ly)})
				}
			}
			b.p.labels.put(c, sty, nr.Empty, at...)
			continue
		}
		n := t.lanes.nodeLane(nr.Nodes[0])
		if n == nil {
			continue
		}
		for _, s := range n.States {
			x0, x1, ok := xSpan(c, tx, s.Start, s.End, px(3))
			if !ok {
				continue
			}
			c.SetColor(alpha(downHue, 0.3))
			c.Fill(rect(x0, ty(y-rowHalf), x1, ty(y+rowHalf)))
			sty := textStyle(10.5, true, downHue)
			sty.YAlign = draw.YCenter
			b.p.labels.put(c, sty, s.State, vg.Point{X: x0 + px(3), Y: ty(y + holdY)}, vg.Point{X: x1 + px(3), Y: ty(y + holdY)})
		}
		for _, h := range n.Holds {
			if t.stopped() != nil {
				return
			}
			x0, x1, ok := xSpan(c, tx, h.Start, h.End, px(3))
			if !ok {
				continue
			}
			hue := clientHue(h.Client)
			fill := tint(hue, 0.35)
			if h.Failed {
				fill = tint(hue, 0.8)
			}
			y0, y1 := ty(y+holdY-holdH/2), ty(y+holdY+holdH/2)
			switch {
			case h.Probe:
				hue = probeOK
				drawBar(c, x0, x1, y0, y1, tint(probeOK, 0.35), probeOK)
			case h.Client < 0:
				drawUnownedHold(c, x0, x1, y0, y1)
			default:
				drawBar(c, x0, x1, y0, y1, fill, hue)
			}
			if h.Ended == "open" && tx(ms(h.End)) <= c.Max.X {
				drawArrow(c, x1, y0, y1, hue)
			}
			label := holdLabel(h)
			sty := textStyle(10.5, true, shade(hue, 0.5))
			sty.YAlign = draw.YCenter
			// inside its bar: drawn at once, kept clear by the labeler
			at := vg.Point{X: x0 + px(3), Y: ty(y + holdY)}
			if w := sty.Width(label); x1-x0 >= w+px(6) && b.p.labels.free(labelRect(sty, at, label)) {
				c.FillText(sty, at, label)
				b.p.labels.take(labelRect(sty, at, label), label)
			} else if h.NoTTL {
				// a key that never expires is the mechanism: say so beside it
				b.p.labels.put(c, sty, label, vg.Point{X: x1 + px(10), Y: ty(y + holdY)}, vg.Point{X: x0 - w - px(3), Y: ty(y + holdY)})
			}
		}
	}
}

// drawUnownedHold draws a key whose setter the history does not name (a
// value no acquire returned, set while several clients were trying): an
// outline, dashed, so that it reads as neither a client's hold nor a
// node down.
func drawUnownedHold(c draw.Canvas, x0, x1, y0, y1 vg.Length) {
	c.SetColor(white)
	c.Fill(rect(x0, y0, x1, y1))
	c.SetLineStyle(draw.LineStyle{Color: grey, Width: px(1.2), Dashes: []vg.Length{px(4), px(2)}})
	c.Stroke(rect(x0, y0, x1, y1))
}

// drawAttempt draws an acquire that succeeded, from its call to its
// return: a line with a tick at each end, on the lease bar's level.
func drawAttempt(c draw.Canvas, tx, ty func(float64) vg.Length, a span, y float64, hue color.Color) {
	x0, x1, ok := xSpan(c, tx, a.start, a.end, px(1))
	if !ok {
		return
	}
	line := draw.LineStyle{Color: hue, Width: px(1.5)}
	ym, h := ty(y), px(5)
	c.StrokeLine2(line, x0, ym, x1, ym)
	c.StrokeLine2(line, x0, ym-h, x0, ym+h)
	c.StrokeLine2(line, x1, ym-h, x1, ym+h)
}

// drawLapse draws, over the lease bar, a stretch in which the lease had
// run out and a later ok extend said it held: white with a dashed red
// edge, since the claim counts the client as holding there.
func drawLapse(c draw.Canvas, x0, x1, y0, y1 vg.Length) {
	c.SetColor(white)
	c.Fill(rect(x0, y0, x1, y1))
	c.SetLineStyle(draw.LineStyle{Color: red, Width: px(1.5), Dashes: []vg.Length{px(4), px(2)}})
	c.Stroke(rect(x0, y0, x1, y1))
}

// drawExtend marks an extend's return on the lease bar: a diamond, filled
// in the client's colour when it came back ok, hollow grey when refused or
// of unknown outcome.
func drawExtend(c draw.Canvas, x, y vg.Length, ok bool, hue color.RGBA) {
	r := px(5)
	var d vg.Path
	d.Move(vg.Point{X: x, Y: y + r})
	d.Line(vg.Point{X: x + r, Y: y})
	d.Line(vg.Point{X: x, Y: y - r})
	d.Line(vg.Point{X: x - r, Y: y})
	d.Close()
	var fill, edge color.Color = hue, shade(hue, 0.4)
	if !ok {
		fill, edge = white, grey
	}
	c.SetColor(fill)
	c.Fill(d)
	c.SetLineStyle(draw.LineStyle{Color: edge, Width: px(1)})
	c.Stroke(d)
}

// drawWait draws a wait for the unlock message on the lease bar's level:
// a faint band with a dashed line along it, so that it reads as time spent
// waiting, not as a bar of its own.
func drawWait(c draw.Canvas, tx, ty func(float64) vg.Length, w span, y float64, hue color.RGBA) {
	x0, x1, ok := xSpan(c, tx, w.start, w.end, px(1))
	if !ok {
		return
	}
	ym, h := ty(y), px(3)
	c.SetColor(alpha(hue, 0.18))
	c.Fill(rect(x0, ym-h, x1, ym+h))
	c.StrokeLine2(draw.LineStyle{Color: shade(hue, 0.15), Width: px(1.5), Dashes: []vg.Length{px(4), px(3)}}, x0, ym, x1, ym)
}

// drawBar fills and outlines one bar.
func drawBar(c draw.Canvas, x0, x1, y0, y1 vg.Length, fill, edge color.Color) {
	c.SetColor(fill)
	c.Fill(rect(x0, y0, x1, y1))
	c.SetLineStyle(draw.LineStyle{Color: edge, Width: px(1)})
	c.Stroke(rect(x0, y0, x1, y1))
}

func drawArrow(c draw.Canvas, x1, y0, y1 vg.Length, hue color.Color) {
	var a vg.Path
	a.Move(vg.Point{X: x1, Y: y0 - px(3)})
	a.Line(vg.Point{X: x1 + px(7), Y: (y0 + y1) / 2})
	a.Line(vg.Point{X: x1, Y: y1 + px(3)})
	a.Close()
	c.SetColor(hue)
	c.Fill(a)
}

// drawSpan draws one bar at least 3 px wide (a fenced section of one write
// has no length) and, when it never ended, an arrow head at its right end.
// It is clipped to the panel.
func drawSpan(c draw.Canvas, tx, ty func(float64) vg.Length, s span, y, h float64, fill, edge color.Color) {
	x0, x1, ok := xSpan(c, tx, s.start, s.end, px(3))
	if !ok {
		return
	}
	y0, y1 := ty(y-h/2), ty(y+h/2)
	drawBar(c, x0, x1, y0, y1, fill, edge)
	if s.open && tx(ms(s.end)) <= c.Max.X {
		drawArrow(c, x1, y0, y1, edge)
	}
}

// probeBars draws the liveness probe: green when it acquired, red when it
// could not (a deadlock), with its outcome written beside it.
type probeBars struct{ p *panel }

func (b probeBars) Plot(c draw.Canvas, pl *plot.Plot) {
	t := b.p.t
	tx, ty := pl.Transforms(&c)
	y := t.rowY(len(t.rows) - 1)
	sty := textStyle(11, false, color.Black)
	sty.YAlign = draw.YCenter
	if len(t.lanes.probes) == 0 {
		c.FillText(sty, vg.Point{X: c.Min.X + px(6), Y: ty(y)}, "no liveness probe in this run")
		return
	}
	for i, op := range t.lanes.probes {
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
			b.p.labels.put(c, sty, what, vg.Point{X: x, Y: ty(y)})
		}
	}
}

// rejectedMarks are the writes the resource refused (a red cross).
type rejectedMarks struct{ p *panel }

func (m rejectedMarks) Plot(c draw.Canvas, pl *plot.Plot) {
	t := m.p.t
	tx, ty := pl.Transforms(&c)
	for r, rw := range t.rows {
		if rw.kind != rowClient || t.stopped() != nil {
			continue
		}
		for _, at := range t.lanes.byClient[rw.id].rejected {
			x := tx(ms(at))
			if x < c.Min.X || x > c.Max.X {
				continue
			}
			c.DrawGlyphNoClip(rejectedGlyph, vg.Point{X: x, Y: ty(t.rowY(r) + sectionY)})
		}
	}
}

var rejectedGlyph = draw.GlyphStyle{Color: red, Radius: px(6), Shape: thickCross{}}

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

// overlapMarks frames the first witness of an unsafe check (or of a
// claim fencing covered): a box over the two clients' rows during the
// overlap, numbered and labelled with who overlapped whom; the other
// witnesses are counted in the label ("+9 more overlaps"), not framed on
// top of each other: summary.md and verdict.json list them. A witness
// whose intervals do not overlap (a fencing token that went backwards) is
// a dashed box from the one's start to the other's.
type overlapMarks struct{ p *panel }

func (m overlapMarks) Plot(c draw.Canvas, pl *plot.Plot) {
	t := m.p.t
	if len(t.overlaps) == 0 {
		return
	}
	tx, ty := pl.Transforms(&c)
	o := t.overlaps[0]
	ra, rb := t.clientRow(o.a), t.clientRow(o.b)
	if ra < 0 || rb < 0 {
		return
	}
	upper, lower := min(ra, rb), max(ra, rb)
	yTop, yBot := ty(t.rowY(upper)+overlapPad), ty(t.rowY(lower)-overlapPad)
	x0, x1, ok := xSpan(c, tx, o.start, o.end, px(4))
	if !ok {
		return
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
	m.p.frames++
	m.p.labels.line(x0, yBot, x0, yTop)
	m.p.labels.line(x1, yBot, x1, yTop)

	// The label goes right above the rows, where no bar can be hidden
	// under it, over its frame (a short line ties the two), slid sideways
	// off the lines that tie the fault labels above it to their faults.
	sty := textStyle(12.5, true, hue)
	sty.YAlign = draw.YTop
	texts := []string{witnessLabel(o)}
	if more := moreOverlaps(t.overlaps); more != "" {
		texts = []string{texts[0] + " · " + more, texts[0]}
	}
	mid := (x0 + x1) / 2
	y := ty(float64(len(t.rows))-rowHalf) + px(labelLinePx) - px(1)
	var cands []vg.Point
	for _, txt := range texts {
		w := sty.Width(txt)
		for k := range 9 {
			x := min(max(mid-w*vg.Length(k)/8, c.Min.X+px(2)), c.Max.X-w-px(2))
			if pt := (vg.Point{X: x, Y: y}); !slices.Contains(cands, pt) {
				cands = append(cands, pt)
			}
		}
	}
	m.p.labels.putTied(c, sty, texts, func(pt vg.Point, txt string) segment {
		return segment{vg.Point{X: mid, Y: labelRect(sty, pt, txt).Min.Y}, vg.Point{X: mid, Y: yTop}}
	}, cands...)
}

// witnessLabel names the first witness on the chart, numbered as
// summary.md lists it.
func witnessLabel(o overlap) string {
	switch {
	case o.starved():
		return fmt.Sprintf("witness 1: client %d starved: it asked while the lock was free (liveness)", o.a)
	case o.covered:
		return fmt.Sprintf("witness 1: leases overlapped, covered by fencing: client %d / client %d", o.a, o.b)
	case o.disjoint:
		return fmt.Sprintf("witness 1: %s: client %d / client %d", o.check, o.a, o.b)
	}
	if o.vouchedBy > 0 {
		return fmt.Sprintf("witness 1: overlap client %d / client %d (%s): client %d's lease had run out, its extend at %s said it held",
			o.a, o.b, o.check, o.a, msNumber(o.vouchedBy)+" ms")
	}
	return fmt.Sprintf("witness 1: overlap client %d / client %d (%s)", o.a, o.b, o.check)
}

// moreOverlaps counts the witnesses after the first ("" when none).
func moreOverlaps(ovs []overlap) string {
	if len(ovs) < 2 {
		return ""
	}
	return fmt.Sprintf("+%d more overlaps, see summary.md", len(ovs)-1)
}

// legendItem is one entry of the legend strip under the chart.
type legendItem struct {
	label string
	thumb func(c draw.Canvas, box vg.Rectangle)
}

// legendItems explains only the marks this chart uses, each with the
// drawing the chart uses.
func (t *timeline) legendItems() []legendItem {
	hue := clientHue(0)
	bar := func(h float64, fill, edge color.Color) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			hh := px(h / 2)
			drawBar(c, b.Min.X, b.Max.X, mid-hh, mid+hh, fill, edge)
		}
	}
	section := "critical section at the resource (enter → exit)"
	if t.lanes.fenced {
		section = "critical section at the resource (first → last accepted write)"
	}
	items := []legendItem{
		{"acquire sent → granted", func(c draw.Canvas, b vg.Rectangle) {
			drawAttempt(c, func(v float64) vg.Length { return b.Min.X + vg.Length(v)*(b.Max.X-b.Min.X) },
				func(float64) vg.Length { return (b.Min.Y + b.Max.Y) / 2 }, span{start: 0, end: time.Millisecond}, 0, hue)
		}},
		{"lease claimed (granted → release or expiry)", bar(7, tint(hue, 0.55), tint(hue, 0.2))},
		{section, bar(16, hue, hue)},
	}
	var rejected, refused, unknown, read, open, waits, extendOK, extendNot, lapses bool
	for _, l := range t.lanes.byClient {
		rejected = rejected || len(l.rejected) > 0
		waits = waits || len(l.waits) > 0
		lapses = lapses || len(l.lapses) > 0
		for _, e := range l.extends {
			extendOK = extendOK || e.ok
			extendNot = extendNot || !e.ok
		}
		for _, f := range l.failed {
			refused = refused || f.Outcome == "fail"
			unknown = unknown || f.Outcome != "fail"
		}
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
	diamond := func(ok bool) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			drawExtend(c, (b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2, ok, hue)
		}
	}
	if extendOK {
		items = append(items, legendItem{"extend (renewal) came back ok", diamond(true)})
	}
	if extendNot {
		items = append(items, legendItem{"extend refused or of unknown outcome", diamond(false)})
	}
	if lapses {
		items = append(items, legendItem{"lease ran out, then an ok extend said it held: the claim counts it held", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			drawLapse(c, b.Min.X, b.Max.X, mid-px(3.5), mid+px(3.5))
		}})
	}
	if refused {
		items = append(items, legendItem{"failed acquire attempt, with its reason", bar(7, tint(grey, 0.55), grey)})
	}
	if waits {
		items = append(items, legendItem{"waiting for the unlock message (wait: notify)", func(c draw.Canvas, b vg.Rectangle) {
			drawWait(c, func(v float64) vg.Length { return b.Min.X + vg.Length(v)*(b.Max.X-b.Min.X) },
				func(float64) vg.Length { return (b.Min.Y + b.Max.Y) / 2 }, span{start: 0, end: time.Millisecond}, 0, hue)
		}})
	}
	if unknown {
		items = append(items, legendItem{"acquire of unknown outcome (timeout, error)", bar(7, tint(unknownHue, 0.5), unknownHue)})
	}
	if rejected {
		items = append(items, legendItem{"write rejected by the resource", func(c draw.Canvas, b vg.Rectangle) {
			c.DrawGlyphNoClip(rejectedGlyph, vg.Point{X: (b.Min.X + b.Max.X) / 2, Y: (b.Min.Y + b.Max.Y) / 2})
		}})
	}
	var holds, failedHolds, states, observed, noTTL, unowned, probe bool
	for _, n := range t.lanes.nodes {
		states = states || len(n.States) > 0
		for _, h := range n.Holds {
			unowned = unowned || h.Client < 0 && !h.Probe
			probe = probe || h.Probe
			holds = holds || !h.Failed && !h.Observed
			failedHolds = failedHolds || h.Failed
			observed = observed || h.Observed
			noTTL = noTTL || h.NoTTL
		}
	}
	if holds {
		items = append(items, legendItem{"node: key held with that client's token (client's colour)", bar(14, tint(hue, 0.35), hue)})
	}
	if observed {
		items = append(items, legendItem{"node: key as the harness read it off the node (every 5 ms), where the design's replies do not say", bar(14, tint(hue, 0.35), hue)})
	}
	if unowned {
		items = append(items, legendItem{"node: key whose setter the history does not name", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			drawUnownedHold(c, b.Min.X, b.Max.X, mid-px(7), mid+px(7))
		}})
	}
	if probe {
		items = append(items, legendItem{"node: the liveness probe's key", bar(14, tint(probeOK, 0.35), probeOK)})
	}
	if noTTL {
		items = append(items, legendItem{"node: key with no TTL (never expires)", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			drawBar(c, b.Min.X, b.Max.X-px(8), mid-px(7), mid+px(7), tint(hue, 0.35), hue)
			drawArrow(c, b.Max.X-px(8), mid-px(7), mid+px(7), hue)
		}})
	}
	if failedHolds {
		items = append(items, legendItem{"node: key set by an attempt that failed", bar(14, tint(hue, 0.8), hue)})
	}
	items = append(items, t.failoverLegend()...)
	items = append(items, t.clusterLegend()...)
	if states {
		items = append(items, legendItem{"node down or paused", func(c draw.Canvas, b vg.Rectangle) {
			c.SetColor(alpha(downHue, 0.3))
			c.Fill(b.Path())
		}})
	}
	if open {
		items = append(items, legendItem{"never ended (drawn to the end)", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			drawArrow(c, b.Min.X+px(6), mid-px(4), mid+px(4), hue)
		}})
	}
	var rowFault, linkFault, clockFault, runLong bool
	for _, m := range t.faults {
		switch {
		case m.link:
			linkFault = true
		case m.clock:
			clockFault = true
		default:
			rowFault = rowFault || !m.runLong
			runLong = runLong || m.runLong
		}
	}
	if rowFault {
		items = append(items, legendItem{"fault on that row (F<id>, see summary.md)", func(c draw.Canvas, b vg.Rectangle) { drawRowBand(c, b) }})
	}
	if runLong {
		items = append(items, legendItem{"fault lasting most of the run: starts at the tick, dashed while it lasts", func(c draw.Canvas, b vg.Rectangle) {
			drawRunLong(c, shade(faultHue, 0.1), b.Min.X+px(3), b.Max.X, b.Min.Y, b.Max.Y)
		}})
	}
	if clockFault {
		items = append(items, legendItem{"clock fault: offset of that clock", func(c draw.Canvas, b vg.Rectangle) {
			drawClockStripe(c, vg.Rectangle{Min: vg.Point{X: b.Min.X, Y: b.Max.Y - px(8)}, Max: b.Max})
		}})
	}
	if linkFault {
		items = append(items, legendItem{"network fault on this endpoint's links (side A | B)", func(c draw.Canvas, b vg.Rectangle) {
			drawLinkStrip(c, vg.Rectangle{Min: b.Min, Max: vg.Point{X: b.Max.X, Y: b.Min.Y + px(6)}})
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

const legendThumbW, legendThumbH, legendGap = 30, 16, 22

// legendLayout places the items left to right, wrapping: each item's x
// (from the left edge) and line.
func (t *timeline) legendLayout(width vg.Length) (xs []vg.Length, lines []int) {
	sty := textStyle(11.5, false, color.Black)
	x, line := vg.Length(0), 0
	for _, it := range t.legend {
		w := px(legendThumbW+6) + sty.Width(it.label)*1.08 // slack for a wider fallback font in the SVG
		if x > 0 && x+w > width {
			x, line = 0, line+1
		}
		xs, lines = append(xs, x), append(lines, line)
		x += w + px(legendGap)
	}
	return xs, lines
}

func (t *timeline) legendLines() int {
	_, lines := t.legendLayout(px(figWidthPx - 20))
	if len(lines) == 0 {
		return 1
	}
	return lines[len(lines)-1] + 1
}

// drawLegend draws the items as legendLayout placed them.
func (t *timeline) drawLegend(c draw.Canvas) {
	sty := textStyle(11.5, false, color.Black)
	sty.YAlign = draw.YCenter
	xs, lines := t.legendLayout(c.Max.X - c.Min.X)
	for i, it := range t.legend {
		x := c.Min.X + xs[i]
		y := c.Max.Y - px(legendThumbH/2+3) - px(legendLinePx*float64(lines[i]))
		it.thumb(c, vg.Rectangle{Min: vg.Point{X: x, Y: y - px(legendThumbH/2)}, Max: vg.Point{X: x + px(legendThumbW), Y: y + px(legendThumbH/2)}})
		c.FillText(sty, vg.Point{X: x + px(legendThumbW+6), Y: y}, it.label)
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
	first := fmt.Sprintf("%s · %s · %s", expectationPhrase(in), strings.Join(checks, ", "), setup(in.Setup, in.History))
	lines := []string{first}
	if len(ovs) > 0 {
		o := ovs[0]
		s := fmt.Sprintf("first witness (%s): client %d and client %d, %s", o.check, o.a, o.b, fmtRange(o.start, o.end))
		switch {
		case o.starved():
			s = fmt.Sprintf("first witness (liveness): client %d starved, asking while the lock was free %s", o.a, fmtRange(o.start, o.end))
		case o.covered:
			s = fmt.Sprintf("leases overlapped; covered by fencing: client %d and client %d, %s", o.a, o.b, fmtRange(o.start, o.end))
		}
		var fs []string
		for _, f := range o.faults {
			fs = append(fs, fmt.Sprintf("F%d", f.ID))
		}
		if len(fs) > 0 {
			s += ", around " + strings.Join(fs, ", ")
		}
		if more := moreOverlaps(ovs); more != "" {
			s += "; " + more
		}
		lines = append(lines, s)
	}
	return lines
}
