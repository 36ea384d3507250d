package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/artifact"
)

// reclaimPartialDirs removes the unfinished result directories under the
// results root out whose run is gone (a second signal or kill -9 ended it
// before it could clean up), saying so in one line.
func reclaimPartialDirs(stderr io.Writer, out string) {
	removed, err := artifact.ReclaimPartial(out)
	if len(removed) > 0 {
		pids := make([]string, len(removed))
		for i, d := range removed {
			pids[i] = strconv.Itoa(d.PID)
		}
		fmt.Fprintf(stderr, "removed %d unfinished result director%s that ended locksim runs left in %s (pid %s)\n",
			len(removed), plural(len(removed), "y", "ies"), out, strings.Join(pids, ", "))
	}
	if err != nil {
		fmt.Fprintln(stderr, "warning:", err)
	}
}
