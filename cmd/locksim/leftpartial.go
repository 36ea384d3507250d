package main

import (
	"fmt"
	"io"

	"github.com/locksim/locksim/internal/artifact"
)

// reclaimPartialDirs removes the unfinished result directories under the
// results root out whose run is gone (a second signal or kill -9 ended it
// before it could clean up), saying so in one line.
func reclaimPartialDirs(stderr io.Writer, out string) {
	removed, err := artifact.ReclaimPartial(out)
	if line := artifact.Reclaimed(removed, "locksim runs", out); line != "" {
		fmt.Fprintln(stderr, line)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warning:", err)
	}
}
