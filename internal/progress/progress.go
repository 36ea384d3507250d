// Package progress shows long work (a matrix, a benchmark sweep) the way a
// user expects: a bar on a terminal, and one plain line per finished step
// otherwise (a log file, CI, a pipe), so nothing is lost to carriage
// returns.
package progress

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a progress display on w.
type Bar struct {
	w   io.Writer
	tty bool
	bar *progressbar.ProgressBar
}

// New shows progress on w; a bar only when w is a terminal.
func New(w io.Writer) *Bar {
	f, ok := w.(*os.File)
	return &Bar{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// Update moves the bar to done of total with desc; off a terminal it
// prints "[done/total] line" instead, when line is not empty.
func (b *Bar) Update(done, total int, desc, line string) {
	if !b.tty {
		switch {
		case line == "":
		case total < 0: // open-ended: a count, no total
			fmt.Fprintf(b.w, "[%d] %s\n", done, line)
		default:
			fmt.Fprintf(b.w, "[%d/%d] %s\n", done, total, line)
		}
		return
	}
	if b.bar == nil {
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionClearOnFinish(),
		)
	}
	b.bar.Describe(desc)
	_ = b.bar.Set(done)
}

// Finish ends the bar's line, if one was drawn.
func (b *Bar) Finish() {
	if b.bar != nil {
		_ = b.bar.Finish()
		fmt.Fprintln(b.w)
	}
}
