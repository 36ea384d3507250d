package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/locksim/locksim/bench"
)

// progress shows a bar on a terminal and one plain line per finished
// configuration otherwise (a log, CI, a pipe).
type progress struct {
	w   io.Writer
	tty bool
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progress) update(ev bench.Progress) {
	if !p.tty {
		if ev.Result != nil {
			fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", ev.Done, ev.Total, ev.Step, resultLine(ev.Result))
		}
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(ev.Total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Describe(ev.Step)
	_ = p.bar.Set(ev.Done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

func resultLine(r *bench.Result) string {
	return fmt.Sprintf("%.0f cycles/s, %d failed acquires, %d errors, acquire p50 %.0f µs p99 %.0f µs",
		r.Throughput, r.Refused, r.Errors, r.Acquire.P50, r.Acquire.P99)
}
