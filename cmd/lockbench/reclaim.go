package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/artifact"
)

// reclaimPartialDirs removes, beside the results directory out, the
// unfinished ones whose run is gone (a second signal or kill -9 ended it
// before it could clean up), saying so in one line.
func reclaimPartialDirs(stderr io.Writer, out string) {
	removed, err := artifact.ReclaimPartialBeside(out)
	if len(removed) > 0 {
		pids := make([]string, len(removed))
		for i, d := range removed {
			pids[i] = strconv.Itoa(d.PID)
		}
		what := "directory"
		if len(removed) > 1 {
			what = "directories"
		}
		fmt.Fprintf(stderr, "lockbench: removed %d unfinished result %s that ended runs left in %s (pid %s)\n",
			len(removed), what, filepath.Dir(filepath.Clean(out)), strings.Join(pids, ", "))
	}
	if err != nil {
		fmt.Fprintln(stderr, "lockbench: warning:", oneLine(err))
	}
}
