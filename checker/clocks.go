package checker

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/locksim/locksim/history"
)

// A lease's deadline is a reading of its client's clock. The instants at
// which the client believes the lease valid are those at which its clock
// reads less than the deadline; when the clock steps back or slows after
// the acquire, that lasts longer in true time than it looked when the
// reply came, and a clock that steps forward and back again can make a
// lease look over and then valid again. So the true-time image of a
// deadline is a set of spans, computed from the clock's whole course.

// forever stands for "no end": a lock without expiry, a lease never
// released, a section never left.
const forever = time.Duration(1<<63 - 1)

// Span is a half-open stretch of true time [Start, End); End is forever
// for "until the end of the history and beyond".
type Span struct {
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
}

// segment: from true time at, the clock reads reading + (t-at)*rate.
type segment struct {
	at, reading time.Duration
	rate        float64
	// floor is the lowest reading of this segment and every later one
	// (each starts at its lowest): a deadline at or below it is past for
	// the rest of the run.
	floor time.Duration
}

// clockCourse is one client's clock over the run, as its records give it.
type clockCourse []segment

// clockCourses reads every client's clock records. A client with none
// read true time throughout.
func clockCourses(h history.History) map[int]clockCourse {
	out := map[int]clockCourse{}
	for _, op := range h.Ops {
		if op.Kind == history.KindClock {
			out[op.Client] = append(out[op.Client], segment{at: op.Call, reading: op.Reading, rate: op.Rate})
		}
	}
	for c, segs := range out {
		slices.SortStableFunc(segs, func(a, b segment) int { return cmp.Compare(a.at, b.at) })
		cc := append(clockCourse{{at: 0, reading: 0, rate: 1}}, segs...)
		for i := len(cc) - 1; i >= 0; i-- {
			cc[i].floor = cc[i].reading
			if i+1 < len(cc) {
				cc[i].floor = min(cc[i].floor, cc[i+1].floor)
			}
		}
		out[c] = cc
	}
	return out
}

// entitled returns the spans from `from` on during which the clock reads
// less than deadline (0: the lock has no expiry, so all of [from,
// forever)). A nil course is a clock that reads true time.
func (cc clockCourse) entitled(from, deadline time.Duration) []Span {
	if deadline == 0 {
		return []Span{{from, forever}}
	}
	if len(cc) == 0 {
		if deadline > from {
			return []Span{{from, deadline}}
		}
		return nil
	}
	var out []Span
	// A dense run's clock has thousands of segments and as many leases:
	// start at the segment from falls in, and stop where the clock never
	// again reads below the deadline.
	first := max(sort.Search(len(cc), func(i int) bool { return cc[i].at > from })-1, 0)
	for i := first; i < len(cc); i++ {
		s := cc[i]
		if s.floor > deadline {
			break
		}
		segEnd := forever
		if i+1 < len(cc) {
			segEnd = cc[i+1].at
		}
		start := max(s.at, from)
		if start >= segEnd {
			continue
		}
		// the reading grows at rate > 0 across the segment, so the
		// client believes the lease valid on a prefix of it
		left := float64(deadline-s.reading) / s.rate // true time from s.at until the reading reaches deadline
		if left <= float64(start-s.at) {
			continue
		}
		end := segEnd
		if left < float64(segEnd-s.at) {
			end = s.at + time.Duration(left)
		}
		if end > start {
			out = appendSpan(out, Span{start, end})
		}
	}
	return out
}

// appendSpan adds s to a sorted list of disjoint spans whose last one
// starts no later than s, merging where they touch.
func appendSpan(spans []Span, s Span) []Span {
	if n := len(spans); n > 0 && spans[n-1].End >= s.Start {
		spans[n-1].End = max(spans[n-1].End, s.End)
		return spans
	}
	return append(spans, s)
}

// unionSpans merges two sorted lists of disjoint spans.
func unionSpans(a, b []Span) []Span {
	all := make([]Span, 0, len(a)+len(b))
	all = append(all, a...)
	all = append(all, b...)
	slices.SortFunc(all, func(x, y Span) int { return cmp.Compare(x.Start, y.Start) })
	var out []Span
	for _, s := range all {
		out = appendSpan(out, s)
	}
	return out
}

// clipSpans keeps the parts of spans inside [from, to).
func clipSpans(spans []Span, from, to time.Duration) []Span {
	var out []Span
	for _, s := range spans {
		s.Start, s.End = max(s.Start, from), min(s.End, to)
		if s.End > s.Start {
			out = append(out, s)
		}
	}
	return out
}

// firstCommon returns the first instant both span lists cover, if any.
func firstCommon(a, b []Span) (time.Duration, time.Duration, bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		s, e := max(a[i].Start, b[j].Start), min(a[i].End, b[j].End)
		if s < e {
			return s, e, true
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return 0, 0, false
}
