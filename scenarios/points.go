package scenarios

import (
	"slices"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// Points lists every point a trigger may name: the client loop's own
// (sim.LoopPoints, in cycle order), then the designs' internal ones
// (lock.Points). A
// design reaches only some of the internal points; a trigger on a point the
// design never reaches never fires, and the run says so in its notes.
// Designs registered from outside add the points they announce
// (lock.Info.Points) after the built-in ones.
func Points() []string {
	var out []string
	all := slices.Concat(sim.LoopPoints, lock.Points)
	for _, i := range lock.Algorithms() {
		all = append(all, i.Points...)
	}
	for _, p := range all {
		if !slices.Contains(out, string(p)) {
			out = append(out, string(p))
		}
	}
	return out
}
