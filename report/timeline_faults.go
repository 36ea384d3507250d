package report

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/locksim/locksim/checker"
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
}

func (m faultMark) visible(lo, hi time.Duration) bool { return m.f.End >= lo && m.f.Start <= hi }

// faultMarks works out where each fault goes.
func (t *timeline) faultMarks() []faultMark {
	end := max(t.lanes.end, time.Millisecond)
	var out []faultMark
	for _, f := range t.lanes.faults {
		m := faultMark{f: f, label: faultLabel(f), short: fmt.Sprintf("F%d", f.ID),
			runLong: f.End-f.Start >= end*85/100}
		tg := f.Target
		switch {
		case tg != nil && tg.Kind == "crash-client":
			m.runLong = true // a dead client: a marker where it died, not a band
		case tg != nil && tg.Kind == "failover":
			m.f.End, m.runLong = m.f.Start, false // the promotion is an instant; the heal rejoins
		case tg != nil && tg.Kind == "kill-node" && tg.Down >= 0:
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
			m.clock = strings.HasPrefix(tg.Kind, "clock-")
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
				m.label = fmt.Sprintf("F%d %s", f.ID, clockWords(tg.Kind, tg.ClockJump, tg.ClockRate))
			}
			if len(m.rows) == 0 {
				m.strip = true
			}
		}
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
		parts = append(parts, "clock at "+strconv.FormatFloat(rate, 'g', 3, 64)+"×")
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

// labeler keeps the labels of one panel from overprinting each other:
// each label takes a rectangle, and a place that meets a taken one is
// refused.
type labeler struct {
	taken   []vg.Rectangle
	pending []func() // the labels, drawn last (labelsLast) so no bar hides one
}

// put places txt at the first free candidate and draws it, on a light
// box, once everything else is drawn.
func (l *labeler) put(c draw.Canvas, sty text.Style, txt string, at ...vg.Point) (vg.Point, bool) {
	pt, ok := l.place(c, sty, txt, at...)
	if ok {
		l.pending = append(l.pending, func() { labelBox(c, sty, pt, txt, alpha(white, 0.85)) })
	}
	return pt, ok
}

// labelsLast draws the panel's labels over everything else.
type labelsLast struct{ p *panel }

func (l labelsLast) Plot(draw.Canvas, *plot.Plot) {
	for _, f := range l.p.labels.pending {
		f()
	}
	l.p.labels.pending = nil
}

// place returns the first of the candidate points (for sty, aligned as
// sty says) at which txt fits inside c without meeting a taken label, and
// takes it.
func (l *labeler) place(c draw.Canvas, sty text.Style, txt string, at ...vg.Point) (vg.Point, bool) {
	r := sty.Rectangle(txt)
	pad := px(2)
	for _, pt := range at {
		box := vg.Rectangle{Min: vg.Point{X: pt.X + r.Min.X - pad, Y: pt.Y + r.Min.Y}, Max: vg.Point{X: pt.X + r.Max.X + pad, Y: pt.Y + r.Max.Y}}
		if box.Min.X < c.Min.X || box.Max.X > c.Max.X {
			continue
		}
		if slices.ContainsFunc(l.taken, func(o vg.Rectangle) bool {
			return box.Min.X < o.Max.X && o.Min.X < box.Max.X && box.Min.Y < o.Max.Y && o.Min.Y < box.Max.Y
		}) {
			continue
		}
		l.taken = append(l.taken, box)
		return pt, true
	}
	return vg.Point{}, false
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

// faultDraw draws every fault on its rows, and labels the ones whose
// label goes above the rows in the strip.
type faultDraw struct{ p *panel }

func (d faultDraw) Plot(c draw.Canvas, pl *plot.Plot) {
	t := d.p.t
	tx, ty := pl.Transforms(&c)
	stripTop := c.Max.Y - px(3)
	if len(t.overlaps) > 0 {
		stripTop -= px(labelLinePx + 2) // the witness line is the top one
	}
	stripLines := d.p.stripLines
	if len(t.overlaps) > 0 {
		stripLines--
	}
	bottom, top := ty(-rowHalf), ty(float64(len(t.rows))-rowHalf)
	for _, m := range t.faults {
		if !m.visible(d.p.lo, d.p.hi) {
			continue
		}
		x0, x1, ok := xSpan(c, tx, m.f.Start, m.f.End, px(2))
		if !ok {
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
			case m.runLong:
				drawRunLong(c, shade(faultHue, 0.2), x0, x1, top-px(14), top)
			default:
				drawRowBand(c, vg.Rectangle{Min: vg.Point{X: x0, Y: bottom}, Max: vg.Point{X: x1, Y: top}})
			}
		}
		for i, r := range m.rows {
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
				d.p.labels.put(c, sty, tag, vg.Point{X: max(x0, c.Min.X) + px(3), Y: yBot + px(10)},
					vg.Point{X: min(x1, c.Max.X) - w - px(3), Y: yBot + px(10)})
				continue
			case m.clock:
				drawClockStripe(c, vg.Rectangle{Min: vg.Point{X: x0, Y: yTop - px(8)}, Max: vg.Point{X: x1, Y: yTop - px(2)}})
			case point:
				c.StrokeLine2(draw.LineStyle{Color: shade(faultHue, 0.1), Width: px(2.5), Dashes: []vg.Length{px(5), px(3)}}, x0, yBot, x0, yTop)
			case m.runLong:
				drawRunLong(c, shade(faultHue, 0.1), x0, x1, yBot, yTop)
			default:
				drawRowBand(c, vg.Rectangle{Min: vg.Point{X: x0, Y: yBot}, Max: vg.Point{X: x1, Y: yTop}})
			}
			label := m.label
			if m.runLong {
				label += " (to the end)"
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
			if _, ok := d.p.labels.put(c, lblSty, label, cands...); !ok {
				d.p.labels.put(c, lblSty, m.short, cands...)
			}
		}
		if !m.strip || stripLines == 0 {
			continue
		}
		label := m.label
		if m.runLong {
			label += " — the whole run"
		}
		x := max(x0, c.Min.X) + px(3)
		if w := lblSty.Width(label); x+w > c.Max.X {
			x = c.Max.X - w - px(3)
		}
		var cands []vg.Point
		for line := range stripLines {
			cands = append(cands, vg.Point{X: x, Y: stripTop - px(labelLinePx*float64(line))})
		}
		if pt, ok := d.p.labels.put(c, lblSty, label, cands...); ok {
			// tie the label to where the fault starts
			c.StrokeLine2(draw.LineStyle{Color: lblSty.Color, Width: px(1), Dashes: []vg.Length{px(2), px(2)}}, x0, pt.Y-px(13), x0, top)
		}
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
