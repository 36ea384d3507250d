package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// View is the one reading of a history that the checks, the timeline and a
// scenario's requirements share, so that a chart draws exactly what the
// checks judged.
type View struct {
	// End is the last instant the history mentions.
	End time.Duration
	// Faults are the fault records, sorted by start.
	Faults []FaultWindow
	// Leases are the lease windows: the spans in which a client was
	// entitled to rely on the lock, sorted by start.
	Leases []LeaseWindow
	// Lapses are the stretches of those windows in which a lease had run
	// out and a later ok extend said it held (leaseValidity).
	Lapses []Lapse
	// Sections are the clients' stays at the resource, in the resource's
	// own order: enter..exit, or with fencing a lease's first..last
	// accepted write.
	Sections []Section
	// Fenced says the sections are runs of accepted writes.
	Fenced bool
	// UnknownAcquires counts acquires whose outcome is unknown: they gave
	// nobody a lease.
	UnknownAcquires int
	// Failed are the acquire attempts that gave no lease (refused or of
	// unknown outcome), in the history's order.
	Failed []FailedAcquire
	// Waits are the notified waiters' waits for the unlock message (wait:
	// notify), in the history's order.
	Waits []UnlockWait
}

// UnlockWait is one wait of a notified waiter for the lock's unlock
// message: from when it reached wait-for-unlock until its next attempt
// (history.Op.WaitFrom), cut short by the message or run out on its timer.
// A polling design's sleeps between attempts are not waits of this kind.
type UnlockWait struct {
	Client int           `json:"client"`
	Key    string        `json:"key"`
	Start  time.Duration `json:"start"`
	End    time.Duration `json:"end"`
}

func unlockWaits(h history.History) []UnlockWait {
	var out []UnlockWait
	for _, op := range h.Ops {
		if op.Kind == history.KindAcquire && op.WaitFrom > 0 && op.Client != history.NoClient {
			out = append(out, UnlockWait{Client: op.Client, Key: op.Key, Start: op.WaitFrom, End: op.Call})
		}
	}
	return out
}

// FailedAcquire is one acquire attempt that gave no lease: from its call
// to its return, with why.
type FailedAcquire struct {
	Client  int             `json:"client"`
	Key     string          `json:"key"`
	Start   time.Duration   `json:"start"`
	End     time.Duration   `json:"end"`
	Outcome history.Outcome `json:"outcome"`
	// Reason is the history's (history.Reason*); histories from before
	// reasons were recorded read as refused (fail) or error (unknown).
	Reason  string `json:"reason"`
	Granted int    `json:"granted,omitempty"` // nodes that set the key, of Asked
	Asked   int    `json:"asked,omitempty"`
}

// Words is the reason as a reader says it: "refused", "timeout",
// "majority not reached 1/5", "validity spent".
func (f FailedAcquire) Words() string {
	switch f.Reason {
	case history.ReasonNoMajority:
		if f.Asked > 0 {
			return fmt.Sprintf("majority not reached %d/%d", f.Granted, f.Asked)
		}
		return "majority not reached"
	case history.ReasonValiditySpent:
		return "validity spent"
	case history.ReasonTimeout:
		return "timeout"
	case history.ReasonError:
		return "error, outcome unknown"
	}
	return "refused"
}

func failedAcquires(h history.History) []FailedAcquire {
	failed := func(op *history.Op) bool {
		return op.Kind == history.KindAcquire && op.Client != history.NoClient && op.Outcome != history.OK
	}
	n := 0
	for i := range h.Ops {
		if failed(&h.Ops[i]) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]FailedAcquire, 0, n)
	for i := range h.Ops {
		op := &h.Ops[i]
		if !failed(op) {
			continue
		}
		f := FailedAcquire{Client: op.Client, Key: op.Key, Start: op.Call, End: op.Return, Outcome: op.Outcome,
			Reason: op.Reason, Granted: len(op.Granted), Asked: op.Asked}
		if f.Reason == "" {
			f.Reason = history.ReasonRefused
			if op.Outcome == history.Unknown {
				f.Reason = history.ReasonError
			}
		}
		out = append(out, f)
	}
	return out
}

// How a lease window ended.
const (
	EndReleased = "released" // its client called release
	EndExpired  = "expired"  // its validity ran out by its client's clock
	EndOpen     = "open"     // neither, within the history
)

// LeaseWindow is one span of one lease (a client's token on a key) in which
// its client was entitled to rely on the lock: from an ok acquire's (or
// renewal's) return until the release that gave the hold up was called, or
// until the validity deadline as the client's clock showed it. A lease
// whose client's clock stepped forward and back can have several windows.
type LeaseWindow struct {
	Client int           `json:"client"`
	Key    string        `json:"key"`
	Token  string        `json:"token"`
	Fence  int64         `json:"fence,omitempty"`
	Read   bool          `json:"read,omitempty"`
	Start  time.Duration `json:"start"`
	// End is when the window closed; for an open window, the history's
	// end (it lasts beyond it).
	End   time.Duration `json:"end"`
	Ended string        `json:"ended"`
	// Vouched is the return of an ok extend that found this lease lapsed
	// and said it held (leaseValidity): the window runs through the lapse.
	Vouched time.Duration `json:"vouched,omitempty"`
}

func (w LeaseWindow) span() Span {
	if w.Ended == EndOpen {
		return Span{w.Start, forever}
	}
	return Span{w.Start, w.End}
}

func (w LeaseWindow) interval() Interval {
	return Interval{Client: w.Client, Token: w.Token, Fence: w.Fence, Start: w.Start, End: w.End}
}

// Section is one client's stay at the resource. Open: it never ended
// inside the history, and End is the history's end.
type Section struct {
	Client int           `json:"client"`
	Key    string        `json:"key"`
	Token  string        `json:"token,omitempty"`
	Fence  int64         `json:"fence,omitempty"`
	Read   bool          `json:"read,omitempty"`
	Start  time.Duration `json:"start"`
	End    time.Duration `json:"end"`
	Open   bool          `json:"open,omitempty"`
}

// Read builds the view of h.
func Read(h history.History) View {
	v := View{End: historyEnd(h), Faults: faultWindows(h)}
	v.Leases, v.UnknownAcquires, v.Lapses = leaseWindows(h, v.End)
	v.Sections, v.Fenced = sections(h, v.End)
	v.Failed = failedAcquires(h)
	v.Waits = unlockWaits(h)
	return v
}

// leaseID names one lease: a reentrant lock's nested acquires share it.
type leaseID struct {
	client int
	key    string
	token  string
}

// leaseEvents groups the lock operations that make or end lease windows:
// ok acquires, ok extends and releases of any outcome (a client that calls
// release stops relying on the lock, whatever the servers then do).
// Refused acquires and acquires of unknown outcome promise nothing.
func leaseEvents(h history.History) (byID map[leaseID][]*history.Op, ids []leaseID, unknown int) {
	byID = map[leaseID][]*history.Op{}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Client == history.NoClient:
		case op.Kind == history.KindAcquire && op.Outcome == history.Unknown:
			unknown++
		case op.Kind == history.KindAcquire && op.Outcome == history.OK,
			op.Kind == history.KindRelease,
			op.Kind == history.KindExtend && op.Outcome == history.OK:
			id := leaseID{op.Client, op.Key, op.Token}
			if _, ok := byID[id]; !ok {
				ids = append(ids, id)
			}
			byID[id] = append(byID[id], op)
		}
	}
	slices.SortFunc(ids, func(a, b leaseID) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.client, b.client), cmp.Compare(a.token, b.token))
	})
	return byID, ids, unknown
}

// leaseWindows computes every lease's windows directly. A lease (one
// token of one client on one key) is a stack of levels: an ok acquire
// pushes one, a release pops the innermost (releases pair last-in
// first-out, so a reentrant lock's outer level lasts until the outer
// release). Per lease, in time order (an acquire or extend counts from its
// return, a release from its call):
//
//   - an ok acquire's level holds the instants from its return at which
//     its deadline lay ahead on the client's clock, and any lapse a later
//     ok extend vouched for (leaseValidity);
//   - an ok acquire also renews every open level that is still valid at
//     its return, with its own deadline (a reentrant lock's nested acquire
//     renews the whole hold). A level that had lapsed is not renewed: the
//     servers may have forgotten it, and the nested acquire then made a
//     fresh hold of its own, which opens a fresh window and ends with its
//     own release;
//   - an ok extend renews every open level from its return on: the lock
//     says it still had the hold, and the client relies on it again;
//   - a release ends the innermost level's windows at its call.
//
// Releases with nothing open and extends of a closed lease are ignored.
func leaseWindows(h history.History, end time.Duration) ([]LeaseWindow, int, []Lapse) {
	byID, ids, unknown := leaseEvents(h)
	valid := leaseValidity(byID, ids, clockCourses(h))
	var out []LeaseWindow
	type level struct {
		acq     *history.Op
		spans   []Span
		vouched time.Duration
	}
	emit := func(l level, stop time.Duration) {
		for _, s := range clipSpans(l.spans, 0, stop) {
			w := LeaseWindow{Client: l.acq.Client, Key: l.acq.Key, Token: l.acq.Token, Fence: l.acq.Fence,
				Read: l.acq.Mode == "read", Start: s.Start, End: s.End, Ended: EndExpired, Vouched: l.vouched}
			switch {
			case s.End == forever:
				w.End, w.Ended = max(end, w.Start), EndOpen
			case s.End == stop:
				w.Ended = EndReleased
			}
			out = append(out, w)
		}
	}
	for _, id := range ids {
		evs := byID[id]
		slices.SortStableFunc(evs, func(a, b *history.Op) int { return cmp.Compare(eventAt(a), eventAt(b)) })
		var open []level // innermost last
		renew := func(e *history.Op, lapsedToo bool) {
			for i := range open {
				if lapsedToo || covers(open[i].spans, e.Return) {
					open[i].spans = unionSpans(open[i].spans, valid.spans[e])
					open[i].vouched = max(open[i].vouched, valid.vouched[e])
				}
			}
		}
		for _, e := range evs {
			switch {
			case e.Kind == history.KindAcquire:
				renew(e, false)
				open = append(open, level{e, valid.spans[e], valid.vouched[e]})
			case e.Kind == history.KindExtend:
				renew(e, true)
			case e.Kind == history.KindRelease && len(open) > 0:
				emit(open[len(open)-1], e.Call)
				open = open[:len(open)-1]
			}
		}
		for _, l := range open {
			emit(l, forever)
		}
	}
	slices.SortStableFunc(out, func(a, b LeaseWindow) int { return cmp.Compare(a.Start, b.Start) })
	return out, unknown, valid.lapses
}

// covers reports whether one of the spans holds instant t.
func covers(spans []Span, t time.Duration) bool {
	for _, s := range spans {
		if s.Start <= t && t < s.End {
			return true
		}
	}
	return false
}

// eventAt is when a lock operation makes or ends a window: an acquire or
// extend from its return (the client knows of it only then), a release
// from its call (the client stopped relying on the lock then).
func eventAt(op *history.Op) time.Duration {
	if op.Kind == history.KindRelease {
		return op.Call
	}
	return op.Return
}

// sections reads the clients' stays from the resource's serial log. A
// history with writes is fenced: a stay is a lease's run of accepted
// writes. Otherwise a client's stay runs from the enter that found it
// outside to the exit that left it outside (a reentrant client's nested
// enters are one stay), per key.
func sections(h history.History, end time.Duration) ([]Section, bool) {
	var ops []*history.Op
	fenced := false
	for i := range h.Ops {
		op := &h.Ops[i]
		fenced = fenced || op.Kind == history.KindWrite
		if op.Seq > 0 && (op.Kind == history.KindEnter || op.Kind == history.KindExit || op.Kind == history.KindWrite) {
			ops = append(ops, op)
		}
	}
	slices.SortStableFunc(ops, func(a, b *history.Op) int { return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Seq, b.Seq)) })
	var out []Section
	if fenced {
		type sec struct {
			client int
			key    string
			token  string
			fence  int64
		}
		idx := map[sec]int{}
		for _, op := range ops {
			if op.Kind != history.KindWrite || op.Outcome != history.OK {
				continue
			}
			k := sec{op.Client, op.Key, op.Token, op.Fence}
			if i, ok := idx[k]; ok {
				out[i].End = op.At
				continue
			}
			idx[k] = len(out)
			out = append(out, Section{Client: op.Client, Key: op.Key, Token: op.Token, Fence: op.Fence,
				Read: op.Mode == "read", Start: op.At, End: op.At})
		}
		return out, true
	}
	type stay struct {
		depth int
		idx   int
	}
	type ck struct {
		client int
		key    string
	}
	in := map[ck]*stay{}
	for _, op := range ops {
		if op.Kind == history.KindWrite {
			continue
		}
		k := ck{op.Client, op.Key}
		st := in[k]
		if op.Kind == history.KindEnter {
			if st == nil {
				st = &stay{idx: len(out)}
				in[k] = st
				out = append(out, Section{Client: op.Client, Key: op.Key, Token: op.Token, Fence: op.Fence,
					Read: op.Mode == "read", Start: op.At, Open: true})
			}
			st.depth++
			continue
		}
		if st == nil {
			continue
		}
		if st.depth--; st.depth == 0 {
			out[st.idx].End, out[st.idx].Open = op.At, false
			delete(in, k)
		}
	}
	for i := range out {
		if out[i].Open {
			out[i].End = max(end, out[i].Start)
		}
	}
	return out, false
}

// LeasesOf returns the windows of one client, in start order.
func (v View) LeasesOf(client int) []LeaseWindow {
	var out []LeaseWindow
	for _, w := range v.Leases {
		if w.Client == client {
			out = append(out, w)
		}
	}
	return out
}
