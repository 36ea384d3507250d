package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/locksim/locksim/internal/artifact"
)

// reclaimPartialDirs removes, beside the results directory out, the
// unfinished ones whose run is gone (a second signal or kill -9 ended it
// before it could clean up), saying so in one line.
func reclaimPartialDirs(stderr io.Writer, out string) {
	removed, err := artifact.ReclaimPartialBeside(out)
	if line := artifact.Reclaimed(removed, "runs", filepath.Dir(filepath.Clean(out))); line != "" {
		fmt.Fprintln(stderr, "lockbench: "+line)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lockbench: warning:", oneLine(err))
	}
}
