package report

import (
	"context"
	"io"
	"testing"
)

// BenchmarkTimeline draws the node-clock-jump witness (five node lanes, a
// zoomed panel) as the PNG and the SVG a run directory holds: the CPU a
// drawn run costs beyond its simulation. go test -bench Timeline ./report/
func BenchmarkTimeline(b *testing.B) {
	in := newRun(b, "redlock-node-clock-jump", "redlock", clockJump(), 2, "unsafe")
	for _, format := range []string{"png", "svg"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				tl, err := newTimeline(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if err := tl.writeTo(io.Discard, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
