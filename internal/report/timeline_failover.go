package report

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/locksim/locksim/checker"
)

// A Sentinel failover is drawn on the row of the master it took down, in
// the phases summary.md's Failover section reports, read by the same
// function (checker.Failovers), so picture and text cannot disagree: the
// master down from the fault that brought it down until a sentinel saw it
// (+sdown), seen down until the quorum agreed (+odown), then the failover
// in progress until the replica was promoted (+switch-master) or the
// master was seen up again. Each phase is a darker grey than the one
// before; each event is a line across the row, named beside it.

// failoverPhase is one shaded span of a failover on its master's row.
type failoverPhase struct {
	node     int
	from, to time.Duration
	what     string
	shade    float64 // opacity of downHue
}

// failoverEvent is one boundary of the phases: an instant and its name.
// The fault's own start is drawn by its fault mark, so it has no line
// (line false).
type failoverEvent struct {
	node  int
	at    time.Duration
	event string
	line  bool
}

// Shades of the three phases, lightest first.
const (
	shadeUnseen   = 0.16
	shadeSDown    = 0.3
	shadeFailover = 0.46
)

// failoverLayout is what the chart draws of the run's failovers.
func failoverLayout(fos []checker.Failover) ([]failoverPhase, []failoverEvent) {
	var phases []failoverPhase
	var events []failoverEvent
	for _, fo := range fos {
		if fo.Node < 0 {
			continue
		}
		n := fo.Node
		if fo.HasFault() {
			events = append(events, failoverEvent{n, fo.From, fmt.Sprintf("master down (F%d)", fo.Fault.FaultID), false})
			if fo.From < fo.Down {
				phases = append(phases, failoverPhase{n, fo.From, fo.Down, "master down, no sentinel sees it yet", shadeUnseen})
			}
		}
		odown := fo.ODown
		if odown == 0 {
			odown = fo.Until
		}
		events = append(events, failoverEvent{n, fo.Down, "+sdown", true})
		phases = append(phases, failoverPhase{n, fo.Down, odown, "seen down (+sdown)", shadeSDown})
		if fo.ODown > 0 {
			events = append(events, failoverEvent{n, fo.ODown, "+odown", true})
			if fo.ODown < fo.Until {
				phases = append(phases, failoverPhase{n, fo.ODown, fo.Until, "failover in progress", shadeFailover})
			}
		}
		switch fo.EndedBy {
		case "switch-master":
			events = append(events, failoverEvent{n, fo.Switch, "+switch-master", true})
		case "recovered":
			events = append(events, failoverEvent{n, fo.End, "-sdown: up again", true})
		}
	}
	return phases, events
}

// failoverMarks draws the phases and events on the masters' rows.
type failoverMarks struct{ p *panel }

func (m failoverMarks) Plot(c draw.Canvas, pl *plot.Plot) {
	t := m.p.t
	tx, ty := pl.Transforms(&c)
	for _, ph := range t.failPhases {
		r := t.rowOf(rowNode, ph.node)
		if r < 0 {
			continue
		}
		x0, x1, ok := xSpan(c, tx, ph.from, ph.to, px(1))
		if !ok {
			continue
		}
		y := t.rowY(r)
		c.SetColor(alpha(downHue, ph.shade))
		c.Fill(rect(x0, ty(y-rowHalf), x1, ty(y+rowHalf)))
		if ph.shade != shadeUnseen {
			continue // the later phases are named by their events
		}
		sty := textStyle(10.5, true, downHue)
		sty.YAlign = draw.YCenter
		var at []vg.Point
		for _, ly := range []float64{y + holdY, y - 0.25} {
			if x0+sty.Width(ph.what)+px(8) < x1 {
				at = append(at, vg.Point{X: x0 + px(4), Y: ty(ly)})
			}
		}
		m.p.labels.put(c, sty, ph.what, at...)
	}
	for _, ev := range t.failEvents {
		r := t.rowOf(rowNode, ev.node)
		if r < 0 || !ev.line {
			continue
		}
		x := tx(ms(ev.at))
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		y := t.rowY(r)
		yBot, yTop := ty(y-rowHalf), ty(y+rowHalf)
		c.StrokeLine2(draw.LineStyle{Color: shade(downHue, 0.2), Width: px(1.5)}, x, yBot, x, yTop)
		m.p.labels.line(x, yBot, x, yTop)
		m.p.events = append(m.p.events, drawnEvent{ev, x})
		sty := textStyle(10.5, true, shade(downHue, 0.2))
		sty.YAlign = draw.YCenter
		w := sty.Width(ev.event)
		var at []vg.Point
		levels := []float64{y - 0.24, y + holdY, y + 0.26}
		for _, ly := range levels {
			at = append(at, vg.Point{X: x + px(4), Y: ty(ly)})
		}
		for _, ly := range levels {
			at = append(at, vg.Point{X: x - w - px(4), Y: ty(ly)})
		}
		m.p.labels.put(c, sty, ev.event, at...)
	}
}

// failoverLegend explains the phases this chart draws.
func (t *timeline) failoverLegend() []legendItem {
	var items []legendItem
	seen := map[float64]bool{}
	for _, ph := range t.failPhases {
		seen[ph.shade] = true
	}
	for _, it := range []struct {
		shade float64
		label string
	}{
		{shadeUnseen, "Sentinel: master down, no sentinel sees it yet (fault → +sdown)"},
		{shadeSDown, "Sentinel: master seen down (+sdown → +odown)"},
		{shadeFailover, "Sentinel: failover in progress (+odown → +switch-master)"},
	} {
		if !seen[it.shade] {
			continue
		}
		items = append(items, legendItem{it.label, func(c draw.Canvas, b vg.Rectangle) {
			c.SetColor(alpha(downHue, it.shade))
			c.Fill(b.Path())
			if it.shade != shadeUnseen {
				c.StrokeLine2(draw.LineStyle{Color: shade(downHue, 0.2), Width: px(1.5)}, b.Min.X, b.Min.Y, b.Min.X, b.Max.Y)
			}
		}})
	}
	return items
}
