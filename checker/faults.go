package checker

import (
	"cmp"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// maxWitnesses caps the witnesses kept per check. One stuck section can
// overlap every later section; a reader needs the first few, and the
// detail line carries the full count.
const maxWitnesses = 10

// faultIndex is the history's fault windows, sorted by start.
type faultIndex []FaultWindow

func faultWindows(h history.History) faultIndex {
	var fi faultIndex
	for _, op := range h.Ops {
		if op.Kind == history.KindFault {
			fi = append(fi, FaultWindow{ID: op.FaultID, Desc: op.Fault, Start: op.Call, End: op.Return, Target: op.Target})
		}
	}
	slices.SortStableFunc(fi, func(a, b FaultWindow) int { return cmp.Compare(a.Start, b.Start) })
	return fi
}

// during returns the faults whose window intersects [from, to]. Both ends
// are closed so that a point fault (start == stop) at a boundary counts.
func (fi faultIndex) during(from, to time.Duration) []FaultWindow {
	var out []FaultWindow
	for _, f := range fi {
		if f.Start > to {
			break
		}
		if f.End >= from {
			out = append(out, f)
		}
	}
	return out
}

// witness builds a Witness and attaches the faults around it: from the
// earlier interval's start to the end of the overlap (or to the later start
// when the intervals do not overlap, as for a token that went backwards).
func (fi faultIndex) witness(check, key string, a, b Interval, note string) Witness {
	from := min(a.Start, b.Start)
	to := max(min(a.End, b.End), max(a.Start, b.Start))
	return Witness{Check: check, Key: key, A: a, B: b, Faults: fi.during(from, to), Note: note}
}

// historyEnd is the last instant the history mentions: the end of a lease
// that never expires and of a section that never exited.
func historyEnd(h history.History) time.Duration {
	var end time.Duration
	for _, op := range h.Ops {
		end = max(end, op.Return, op.At)
	}
	return end
}
