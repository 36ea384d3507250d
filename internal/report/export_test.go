package report

import (
	"context"
	"io"
)

// LaidOutLabel is a label a timeline panel laid out: its text and box, in
// the canvas's points.
type LaidOutLabel struct {
	Text                   string
	MinX, MinY, MaxX, MaxY float64
}

// LaidOutLine is a reference line a timeline panel drew.
type LaidOutLine struct{ X0, Y0, X1, Y1 float64 }

// PanelLayout is what one panel of a drawn timeline laid out.
type PanelLayout struct {
	Labels []LaidOutLabel
	Lines  []LaidOutLine
}

// TimelineNodeRows lays out in's timeline and returns the nodes it has a
// row for.
func TimelineNodeRows(in Run) ([]int, error) {
	tl, err := newTimeline(context.Background(), in)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, r := range tl.rows {
		if r.kind == rowNode {
			out = append(out, r.id)
		}
	}
	return out, nil
}

// TimelineLayout draws in's timeline and returns each panel's labels and
// reference lines as the drawing placed them.
func TimelineLayout(in Run) ([]PanelLayout, error) {
	tl, err := newTimeline(context.Background(), in)
	if err != nil {
		return nil, err
	}
	if err := tl.writeTo(io.Discard, "svg"); err != nil {
		return nil, err
	}
	var out []PanelLayout
	for _, p := range tl.panels {
		var l PanelLayout
		for i, b := range p.labels.taken {
			l.Labels = append(l.Labels, LaidOutLabel{p.labels.texts[i], float64(b.Min.X), float64(b.Min.Y), float64(b.Max.X), float64(b.Max.Y)})
		}
		for _, s := range p.labels.lines {
			l.Lines = append(l.Lines, LaidOutLine{float64(s.a.X), float64(s.a.Y), float64(s.b.X), float64(s.b.Y)})
		}
		out = append(out, l)
	}
	return out, nil
}

// OnDrawStart makes f run as a report starts on its pictures, until the
// returned function restores the default.
func OnDrawStart(f func()) (restore func()) {
	old := drawStarts
	drawStarts = f
	return func() { drawStarts = old }
}

// TimelineLegend lays out in's timeline and returns its legend's labels.
func TimelineLegend(in Run) ([]string, error) {
	tl, err := newTimeline(context.Background(), in)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range tl.legend {
		out = append(out, it.label)
	}
	return out, nil
}
