package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/vocab"
)

// faultMark is how one fault is drawn: on the rows it hit, or, for a
// fault that says no target, across every row.
type faultMark struct {
	f     checker.FaultWindow
	label string // "F3 clock-jump-node 2 by +2s"
	short string // "F3"
	// rows hit, with a side tag each for a partition's groups ("A", "B",
	// "A+B" for an endpoint in both).
	rows  []int
	sides []string
	link  bool // a network fault: a strip along the bottom of each row
	clock bool // a clock fault: a stripe along the top of the row
	// strip: its label goes in the strip above the rows (network faults
	// and faults without a target).
	strip bool
	// runLong: it lasts (nearly) the whole run: a marker, not a band.
	runLong bool
	// toEnd: it lasted to the run's end (healed with the run), not only
	// most of it.
	toEnd bool
}

// lasting says how long a run-long fault lasted, for its label.
func (m faultMark) lasting() string {
	if m.toEnd {
		return "to the end"
	}
	return "until " + fmtMS(m.f.End)
}

func (m faultMark) visible(lo, hi time.Duration) bool { return m.f.End >= lo && m.f.Start <= hi }

// faultMarks works out where each fault goes.
func (t *timeline) faultMarks() []faultMark {
	end := max(t.lanes.end, time.Millisecond)
	var out []faultMark
	for _, f := range t.lanes.faults {
		if t.stopped() != nil {
			return nil
		}
		m := faultMark{f: f, label: faultLabel(f), short: fmt.Sprintf("F%d", f.ID),
			runLong: f.End-f.Start >= end*85/100}
		tg := f.Target
		var span vocab.Span
		if tg != nil {
			span = tg.Kind.Attrs().Span
		}
		switch {
		case span == vocab.SpanForever:
			m.runLong = true // a dead client: a marker where it died, not a band
		case span == vocab.SpanInstant:
			m.f.End, m.runLong = m.f.Start, false // the promotion is an instant; the heal rejoins
		case span == vocab.SpanUntilRestart && tg.Down >= 0:
			// the node is down only until its restart; the fault's window
			// runs on to its heal
			m.f.End = min(m.f.End, m.f.Start+tg.Down)
			m.runLong = false
		}
		switch {
		case tg == nil:
			m.strip = true
		case tg.Link:
			m.link, m.strip = true, true
			if len(tg.Groups) > 0 {
				side := map[int]string{}
				var parts []string
				for gi, g := range tg.Groups {
					name := string(rune('A' + gi))
					parts = append(parts, name+" ["+strings.Join(g, " ")+"]")
					for _, e := range g {
						for _, r := range t.endpointRows(e) {
							if s, ok := side[r]; ok && !strings.Contains(s, name) {
								side[r] = s + "+" + name
							} else if !ok {
								side[r] = name
							}
						}
					}
				}
				m.label = fmt.Sprintf("F%d %s %s", f.ID, tg.Kind, strings.Join(parts, " | "))
				for r := range t.rows {
					if s, ok := side[r]; ok {
						m.rows, m.sides = append(m.rows, r), append(m.sides, s)
					}
				}
				break
			}
			for r, rw := range t.rows {
				switch {
				case rw.kind == rowClient && (len(tg.Clients) == 0 || slices.Contains(tg.Clients, rw.id)),
					rw.kind == rowNode && (len(tg.Nodes) == 0 || slices.Contains(tg.Nodes, rw.id)):
					m.rows, m.sides = append(m.rows, r), append(m.sides, "")
				}
			}
		default:
			m.clock = tg.Kind.Attrs().HitsClock()
			for _, c := range tg.Clients {
				if r := t.clientRow(c); r >= 0 {
					m.rows = append(m.rows, r)
				}
			}
			for _, n := range tg.Nodes {
				if r := t.rowOf(rowNode, n); r >= 0 {
					m.rows = append(m.rows, r)
				}
			}
			m.sides = make([]string, len(m.rows))
			if m.clock {
				m.label = fmt.Sprintf("F%d %s", f.ID, clockWords(string(tg.Kind), tg.ClockJump, tg.ClockRate))
			}
			if len(m.rows) == 0 {
				m.strip = true
			}
		}
		m.toEnd = m.f.End >= t.runEnd
		out = append(out, m)
	}
	return out
}

// clockWords says what a clock fault did to the clock.
func clockWords(kind string, jump time.Duration, rate float64) string {
	var parts []string
	if jump != 0 {
		parts = append(parts, "clock "+signedDur(jump))
	}
	if rate != 0 && rate != 1 {
		parts = append(parts, "clock at "+strconv.FormatFloat(rate, 'g', -1, 64)+"×")
	}
	if len(parts) == 0 {
		return kind
	}
	return strings.Join(parts, ", ")
}

func signedDur(d time.Duration) string {
	if d < 0 {
		return "−" + (-d).String()
	}
	return "+" + d.String()
}

// endpointRows are the rows of a scenario endpoint name (c0, n2, clients,
// nodes); replication links and the resource have none.
func (t *timeline) endpointRows(name string) []int {
	var out []int
	switch strings.ToLower(name) {
	case "clients", "nodes":
		kind := rowClient
		if strings.ToLower(name) == "nodes" {
			kind = rowNode
		}
		for r, rw := range t.rows {
			if rw.kind == kind {
				out = append(out, r)
			}
		}
		return out
	}
	if len(name) < 2 {
		return nil
	}
	id, err := strconv.Atoi(name[1:])
	if err != nil {
		return nil
	}
	switch name[0] {
	case 'c':
		out = append(out, t.rowOf(rowClient, id))
	case 'n':
		out = append(out, t.rowOf(rowNode, id))
	}
	return slices.DeleteFunc(out, func(r int) bool { return r < 0 })
}

// faultLabel is "F<id> <kind and target>": the fault's printable value up
// to its schedule, which summary.md gives in full.
func faultLabel(f checker.FaultWindow) string {
	return fmt.Sprintf("F%d %s", f.ID, faultWhat(f.Desc))
}

// faultWhat is a fault's printable value without its schedule, which
// comes last in parentheses: "kill-node 2 (restart at once, lose data)".
func faultWhat(desc string) string {
	if i := strings.LastIndex(desc, " ("); i > 0 && strings.HasSuffix(desc, ")") {
		return desc[:i]
	}
	return desc
}

// labeler keeps the labels of one panel apart from each other and from
// the panel's reference lines (row rules, instants, tie lines, frames):
// the plotters ask for labels as they draw, and labelsLast places them
// once every line is known, then draws them over everything else. A label
// takes the first of its candidate places (and of its texts, longest
// first) whose box meets no taken box and crosses no line; one that fits
// nowhere is left out (summary.md tells everything the chart labels).
type labeler struct {
	taken  []vg.Rectangle // placed labels, and text drawn outside the labeler
	texts  []string       // taken[i]'s text
	lines  []segment      // reference lines: no label may cross one
	reqs   []labelReq
	placed bool
	// takenAt and linesAt index taken and lines by the labelColumn-wide
	// columns each spans, so that a candidate is checked against what
	// shares its columns: a run with thousands of faults costs what its
	// picture holds, not the square of its faults.
	takenAt, linesAt map[int][]int
	// marks are small marks (a redirect's glyph) that labels keep off
	// without being labels themselves: they may meet each other and sit
	// on a line.
	marks   []vg.Rectangle
	marksAt map[int][]int
}

// labelColumn is the width of the labeler's index columns.
const labelColumn = vg.Length(48)

// columns are the index columns x0..x1 spans.
func columns(x0, x1 vg.Length) (int, int) {
	return int(math.Floor(float64(min(x0, x1) / labelColumn))), int(math.Floor(float64(max(x0, x1) / labelColumn)))
}

// index records item i, spanning x0..x1, in at.
func index(at *map[int][]int, i int, x0, x1 vg.Length) {
	if *at == nil {
		*at = map[int][]int{}
	}
	c0, c1 := columns(x0, x1)
	for c := c0; c <= c1; c++ {
		(*at)[c] = append((*at)[c], i)
	}
}

// near calls f with each item of at in the columns x0..x1 span (an item
// spanning several may come more than once) until f says stop.
func near(at map[int][]int, x0, x1 vg.Length, f func(i int) bool) bool {
	c0, c1 := columns(x0, x1)
	for c := c0; c <= c1; c++ {
		for _, i := range at[c] {
			if f(i) {
				return true
			}
		}
	}
	return false
}

// addLine records a reference line.
func (l *labeler) addLine(s segment) {
	index(&l.linesAt, len(l.lines), s.a.X, s.b.X)
	l.lines = append(l.lines, s)
}

// segment is a straight line drawn on the panel.
type segment struct{ a, b vg.Point }

// labelReq is one label asked for: its texts in order of preference, the
// places to try, and an optional tie line from the label to its mark.
type labelReq struct {
	c     draw.Canvas
	sty   text.Style
	texts []string
	at    []vg.Point
	// tie returns the line that ties a label placed at pt to its mark;
	// the place is refused when that line would cross a placed label.
	tie func(pt vg.Point, txt string) segment
	// first: placed before the other labels (the labels with a tie line,
	// whose lines the others then avoid).
	first bool
}

// put asks for txt at the first free candidate.
func (l *labeler) put(c draw.Canvas, sty text.Style, txt string, at ...vg.Point) {
	l.reqs = append(l.reqs, labelReq{c: c, sty: sty, texts: []string{txt}, at: at})
}

// putShort asks for the first of texts (longest first) that fits at a
// free candidate.
func (l *labeler) putShort(c draw.Canvas, sty text.Style, texts []string, at ...vg.Point) {
	l.reqs = append(l.reqs, labelReq{c: c, sty: sty, texts: texts, at: at})
}

// putTied asks for txt, placed before the other labels, with the line
// tie gives drawn from it to its mark.
func (l *labeler) putTied(c draw.Canvas, sty text.Style, texts []string, tie func(vg.Point, string) segment, at ...vg.Point) {
	l.reqs = append(l.reqs, labelReq{c: c, sty: sty, texts: texts, at: at, tie: tie, first: true})
}

// line records a reference line that labels keep off.
func (l *labeler) line(x0, y0, x1, y1 vg.Length) {
	l.addLine(segment{vg.Point{X: x0, Y: y0}, vg.Point{X: x1, Y: y1}})
}

// take records text drawn outside the labeler (inside its bar), which
// labels keep off too.
func (l *labeler) take(box vg.Rectangle, txt string) {
	index(&l.takenAt, len(l.taken), box.Min.X, box.Max.X)
	l.taken, l.texts = append(l.taken, box), append(l.texts, txt)
}

// avoid records a small mark that labels keep off.
func (l *labeler) avoid(box vg.Rectangle) {
	index(&l.marksAt, len(l.marks), box.Min.X, box.Max.X)
	l.marks = append(l.marks, box)
}

// free reports whether box meets no taken box or mark and crosses no
// line.
func (l *labeler) free(box vg.Rectangle) bool {
	return !near(l.takenAt, box.Min.X, box.Max.X, func(i int) bool { return boxesMeet(box, l.taken[i]) }) &&
		!near(l.marksAt, box.Min.X, box.Max.X, func(i int) bool { return boxesMeet(box, l.marks[i]) }) &&
		!near(l.linesAt, box.Min.X, box.Max.X, func(i int) bool { return crosses(l.lines[i], box) })
}

// labelsLast places the panel's labels and draws them over everything
// else.
type labelsLast struct{ p *panel }

func (l labelsLast) Plot(draw.Canvas, *plot.Plot) {
	if l.p.t.stopped() == nil {
		l.p.labels.layout(l.p.t.stopped)
	}
}

// layout places and draws the labels asked for, until stop says to stop.
func (l *labeler) layout(stop func() error) {
	if l.placed {
		return
	}
	l.placed = true
	for _, first := range []bool{true, false} {
		for _, r := range l.reqs {
			if stop() != nil {
				return
			}
			if r.first != first {
				continue
			}
			pt, txt, tie, ok := l.place(r)
			if !ok {
				continue
			}
			if r.tie != nil {
				r.c.StrokeLine2(draw.LineStyle{Color: r.sty.Color, Width: px(1.5), Dashes: []vg.Length{px(4), px(2)}}, tie.a.X, tie.a.Y, tie.b.X, tie.b.Y)
			}
			labelBox(r.c, r.sty, pt, txt, alpha(white, 0.85))
		}
	}
}

// labelRect is the box a label takes: its text's extent, padded.
func labelRect(sty text.Style, pt vg.Point, txt string) vg.Rectangle {
	r := sty.Rectangle(txt)
	pad := px(2)
	return vg.Rectangle{Min: vg.Point{X: pt.X + r.Min.X - pad, Y: pt.Y + r.Min.Y}, Max: vg.Point{X: pt.X + r.Max.X + pad, Y: pt.Y + r.Max.Y}}
}

// place returns the first free place of r, in order of its texts, then
// of its candidates, and takes it.
func (l *labeler) place(r labelReq) (vg.Point, string, segment, bool) {
	for _, txt := range r.texts {
		for _, pt := range r.at {
			box := labelRect(r.sty, pt, txt)
			if box.Min.X < r.c.Min.X || box.Max.X > r.c.Max.X || box.Max.Y > r.c.Max.Y || box.Min.Y < r.c.Min.Y {
				continue
			}
			if !l.free(box) {
				continue
			}
			var tie segment
			if r.tie != nil {
				tie = r.tie(pt, txt)
				if near(l.takenAt, tie.a.X, tie.b.X, func(i int) bool { return crosses(tie, l.taken[i]) }) {
					continue
				}
				l.addLine(tie)
			}
			l.take(box, txt)
			return pt, txt, tie, true
		}
	}
	return vg.Point{}, "", segment{}, false
}

// boxesMeet reports whether two boxes share more than an edge.
func boxesMeet(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// crosses reports whether the horizontal or vertical segment s passes
// through the inside of box (a line along its edge does not).
func crosses(s segment, box vg.Rectangle) bool {
	x0, x1 := min(s.a.X, s.b.X), max(s.a.X, s.b.X)
	y0, y1 := min(s.a.Y, s.b.Y), max(s.a.Y, s.b.Y)
	inX := func(x vg.Length) bool { return box.Min.X < x && x < box.Max.X }
	inY := func(y vg.Length) bool { return box.Min.Y < y && y < box.Max.Y }
	switch {
	case x0 == x1:
		return inX(x0) && y0 < box.Max.Y && box.Min.Y < y1
	case y0 == y1:
		return inY(y0) && x0 < box.Max.X && box.Min.X < x1
	}
	// a slanted line: by its bounding box
	return x0 < box.Max.X && box.Min.X < x1 && y0 < box.Max.Y && box.Min.Y < y1
}

// xSpan maps [from, to] onto the panel, clipped to its canvas; ok is false
// when it lies outside. Spans narrower than minW are widened around their
// middle.
func xSpan(c draw.Canvas, tx func(float64) vg.Length, from, to time.Duration, minW vg.Length) (x0, x1 vg.Length, ok bool) {
	x0, x1 = tx(ms(from)), tx(ms(to))
	if x1-x0 < minW {
		mid := (x0 + x1) / 2
		x0, x1 = mid-minW/2, mid+minW/2
	}
	if x1 < c.Min.X || x0 > c.Max.X {
		return 0, 0, false
	}
	return max(x0, c.Min.X), min(x1, c.Max.X), true
}

// Fault marks, shared by the chart and its legend.

func drawRowBand(c draw.Canvas, b vg.Rectangle) {
	c.SetColor(alpha(faultHue, 0.22))
	c.Fill(b.Path())
	edge := draw.LineStyle{Color: alpha(faultHue, 0.9), Width: px(1)}
	c.StrokeLine2(edge, b.Min.X, b.Min.Y, b.Min.X, b.Max.Y)
	c.StrokeLine2(edge, b.Max.X, b.Min.Y, b.Max.X, b.Max.Y)
}

func drawLinkStrip(c draw.Canvas, b vg.Rectangle) {
	c.SetColor(alpha(linkHue, 0.55))
	c.Fill(b.Path())
	c.SetLineStyle(draw.LineStyle{Color: linkHue, Width: px(1)})
	c.Stroke(b.Path())
}

func drawClockStripe(c draw.Canvas, b vg.Rectangle) {
	c.SetColor(alpha(clockHue, 0.45))
	c.Fill(b.Path())
	c.SetLineStyle(draw.LineStyle{Color: clockHue, Width: px(1)})
	c.Stroke(b.Path())
}

// drawRunLong marks a fault that lasts the run: a heavy tick at its start
// and a dashed line after it, in the fault's hue, instead of a band.
func drawRunLong(c draw.Canvas, hue color.RGBA, x0, x1, yBot, yTop vg.Length) {
	c.StrokeLine2(draw.LineStyle{Color: hue, Width: px(3)}, x0, yBot, x0, yTop)
	mid := yTop - px(3)
	c.StrokeLine2(draw.LineStyle{Color: hue, Width: px(1.5), Dashes: []vg.Length{px(6), px(4)}}, x0, mid, x1, mid)
}

// faultLabelColumn is how far apart, at the least, two faults' labels on
// one row are asked for: closer ones could not both be placed.
const faultLabelColumn = vg.Length(36)

// faultDraw draws every fault on its rows, and labels the ones whose
// label goes above the rows in the strip.
type faultDraw struct{ p *panel }

func (d faultDraw) Plot(c draw.Canvas, pl *plot.Plot) {
	t := d.p.t
	tx, ty := pl.Transforms(&c)
	stripTop := c.Max.Y - px(3)
	stripLines := d.p.stripLines
	if len(t.overlaps) > 0 {
		stripLines-- // the witness line is the lowest one, right above its frame
	}
	bottom, top := ty(-rowHalf), ty(float64(len(t.rows))-rowHalf)
	// In a dense panel, what is drawn, by row (-1: across every row or in
	// the strip) and pixel: a mark where one of the same kind is already
	// drawn adds nothing to the picture, and a label is asked for at most
	// once per row, kind and faultLabelColumn. A run with thousands of
	// faults (a dense random nemesis) so costs what its picture holds;
	// summary.md lists every fault.
	type spot struct{ row, x0, x1, kind int }
	// Only a panel with more faults than room for their labels is dense.
	visible := 0
	for _, m := range t.faults {
		if m.visible(d.p.lo, d.p.hi) {
			visible++
		}
	}
	dense := visible > int((c.Max.X-c.Min.X)/faultLabelColumn)
	drawn := map[spot]bool{}
	once := func(row int, x0, x1 vg.Length, kind int) bool {
		if !dense {
			return true
		}
		k := spot{row, int(x0 / px(1)), int(x1 / px(1)), kind}
		if drawn[k] {
			return false
		}
		drawn[k] = true
		return true
	}
	labelled := map[spot]bool{}
	labelOnce := func(row int, x vg.Length, kind int) bool {
		if !dense {
			return true
		}
		k := spot{row: row, x0: int(x / faultLabelColumn), kind: kind}
		if labelled[k] {
			return false
		}
		labelled[k] = true
		return true
	}
	for _, m := range t.faults {
		if t.stopped() != nil {
			return
		}
		if !m.visible(d.p.lo, d.p.hi) {
			continue
		}
		x0, x1, ok := xSpan(c, tx, m.f.Start, m.f.End, px(2))
		if !ok {
			continue
		}
		kind := 0
		switch {
		case m.link:
			kind = 1
		case m.clock:
			kind = 2
		}
		if m.strip && len(m.rows) == 0 && !once(-1, x0, x1, kind) {
			continue
		}
		point := tx(ms(m.f.End))-tx(ms(m.f.Start)) < px(2)
		lblSty := textStyle(11, true, shade(faultHue, 0.45))
		switch {
		case m.link:
			lblSty = textStyle(11, true, shade(linkHue, 0.2))
		case m.clock:
			lblSty = textStyle(11, true, shade(clockHue, 0.2))
		}
		lblSty.YAlign = draw.YTop
		if m.strip && len(m.rows) == 0 {
			// no rows to put it on: across every row, as a band or, when
			// it lasts the run, a marker at the top
			switch {
			case point:
				c.StrokeLine2(draw.LineStyle{Color: faultHue, Width: px(2), Dashes: []vg.Length{px(5), px(3)}}, x0, bottom, x0, top)
				d.p.labels.line(x0, bottom, x0, top)
			case m.runLong:
				drawRunLong(c, shade(faultHue, 0.2), x0, x1, top-px(14), top)
				d.p.labels.line(x0, top-px(14), x0, top)
			default:
				drawRowBand(c, vg.Rectangle{Min: vg.Point{X: x0, Y: bottom}, Max: vg.Point{X: x1, Y: top}})
			}
		}
		for i, r := range m.rows {
			if t.stopped() != nil {
				return
			}
			if !once(r, x0, x1, kind) {
				continue
			}
			y := t.rowY(r)
			yBot, yTop := ty(y-rowHalf), ty(y+rowHalf)
			switch {
			case m.link:
				drawLinkStrip(c, vg.Rectangle{Min: vg.Point{X: x0, Y: yBot + px(2)}, Max: vg.Point{X: x1, Y: yBot + px(8)}})
				tag := m.short
				if m.sides[i] != "" {
					tag += " " + m.sides[i]
				}
				sty := textStyle(9.5, true, shade(linkHue, 0.2))
				sty.YAlign = draw.YBottom
				w := sty.Width(tag)
				if !labelOnce(r, x0, kind) {
					continue
				}
				d.p.labels.put(c, sty, tag, vg.Point{X: max(x0, c.Min.X) + px(3), Y: yBot + px(10)},
					vg.Point{X: min(x1, c.Max.X) - w - px(3), Y: yBot + px(10)},
					vg.Point{X: x0 - w - px(3), Y: yBot + px(10)})
				continue
			case m.clock:
				drawClockStripe(c, vg.Rectangle{Min: vg.Point{X: x0, Y: yTop - px(8)}, Max: vg.Point{X: x1, Y: yTop - px(2)}})
			case point:
				c.StrokeLine2(draw.LineStyle{Color: shade(faultHue, 0.1), Width: px(2.5), Dashes: []vg.Length{px(5), px(3)}}, x0, yBot, x0, yTop)
				d.p.labels.line(x0, yBot, x0, yTop)
			case m.runLong:
				drawRunLong(c, shade(faultHue, 0.1), x0, x1, yBot, yTop)
				d.p.labels.line(x0, yBot, x0, yTop)
			default:
				drawRowBand(c, vg.Rectangle{Min: vg.Point{X: x0, Y: yBot}, Max: vg.Point{X: x1, Y: yTop}})
			}
			label := m.label
			if m.runLong {
				label += " (" + m.lasting() + ")"
			}
			// at the fault's start, else further along it, else just
			// before it
			lx := max(x0, c.Min.X) + px(3)
			var cands []vg.Point
			for x := lx; x == lx || x+lblSty.Width(m.short) < x1; x += px(60) {
				cands = append(cands, vg.Point{X: x, Y: yTop - px(2)})
			}
			if right := x0 - px(3) - lblSty.Width(label); right > c.Min.X {
				cands = append(cands, vg.Point{X: right, Y: yTop - px(2)})
			}
			if labelOnce(r, x0, kind) {
				d.p.labels.putShort(c, lblSty, []string{label, m.short}, cands...)
			}
		}
		if !m.strip || stripLines == 0 || !labelOnce(-1, x0, kind) {
			continue
		}
		label := m.label
		switch {
		case m.runLong && m.toEnd && m.f.Start <= t.runEnd/20:
			label += " — the whole run"
		case m.runLong:
			label += " — " + m.lasting()
		}
		x := max(x0, c.Min.X) + px(3)
		if w := lblSty.Width(label); x+w > c.Max.X {
			x = c.Max.X - w - px(3)
		}
		var cands []vg.Point
		for line := range stripLines {
			cands = append(cands, vg.Point{X: x, Y: stripTop - px(labelLinePx*float64(line))})
		}
		// tied to where the fault starts
		d.p.labels.putTied(c, lblSty, []string{label, m.short}, func(pt vg.Point, txt string) segment {
			return segment{vg.Point{X: x0, Y: labelRect(lblSty, pt, txt).Min.Y}, vg.Point{X: x0, Y: top}}
		}, cands...)
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
