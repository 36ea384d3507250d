package main

import (
	"fmt"
	"io"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/progress"
)

// benchProgress turns the sweep's events into progress: a bar on a
// terminal, one line per finished configuration otherwise.
type benchProgress struct{ bar *progress.Bar }

func newProgress(w io.Writer) *benchProgress { return &benchProgress{progress.New(w)} }

func (p *benchProgress) update(ev bench.Progress) {
	line := ""
	if ev.Result != nil {
		line = ev.Step + ": " + resultLine(ev.Result)
	}
	p.bar.Update(ev.Done, ev.Total, ev.Step, line)
}

func (p *benchProgress) finish() { p.bar.Finish() }

func resultLine(r *bench.Result) string {
	return fmt.Sprintf("%.0f cycles/s, %d failed acquires, %d errors, acquire p50 %.0f µs p99 %.0f µs",
		r.Throughput, r.Refused, r.Errors, r.Acquire.P50, r.Acquire.P99)
}
