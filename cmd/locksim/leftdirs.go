package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim/node"
)

// reclaimLeftDirs removes the node directories of locksim runs that ended
// without cleaning up (kill -9), saying so in one line.
func reclaimLeftDirs(stderr io.Writer) {
	removed, err := node.ReclaimLeftDirs("")
	if len(removed) > 0 {
		pids := make([]string, len(removed))
		for i, d := range removed {
			pids[i] = strconv.Itoa(d.PID)
		}
		fmt.Fprintf(stderr, "removed %d node director%s that ended locksim runs left in %s (pid %s)\n",
			len(removed), plural(len(removed), "y", "ies"), os.TempDir(), strings.Join(pids, ", "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "warning: left-over node directories not looked for in %s (TMPDIR, or /tmp when unset): %v\n", os.TempDir(), err)
	}
}

// leftDirsCheck is the doctor's line on node directories in os.TempDir().
func leftDirsCheck() check {
	const name = "left-over dirs"
	dirs, err := node.LeftDirs("")
	if err != nil {
		return check{name, false, fmt.Sprintf("cannot read %s (TMPDIR, or /tmp when unset): %v", os.TempDir(), err)}
	}
	if len(dirs) == 0 {
		return check{name, true, "no locksim node directories in " + os.TempDir()}
	}
	var parts []string
	for _, d := range dirs {
		switch {
		case d.PID == 0:
			parts = append(parts, d.Path+" (owner unknown: an older locksim; remove it by hand once no run is going)")
		case d.Gone:
			parts = append(parts, fmt.Sprintf("%s (pid %d is gone; the next run removes it)", d.Path, d.PID))
		default:
			parts = append(parts, fmt.Sprintf("%s (pid %d is running)", d.Path, d.PID))
		}
	}
	return check{name, true, strings.Join(parts, "; ")}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
