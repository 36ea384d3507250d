package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/sim"
)

// lanes is what the timeline draws, read from the history: per client its
// lease windows and its stays at the resource, plus the harness's rows.
// It is recomputed here rather than taken from the checker because the
// checker keeps only what it judges; the picture shows every section, also
// the ones nobody overlapped.
type lanes struct {
	clients  []int // row order: client ids, ascending
	byClient map[int]*clientLane
	probes   []sim.Op
	faults   []checker.FaultWindow // sorted by start
	end      time.Duration         // last instant the history mentions
	fenced   bool                  // sections are runs of accepted writes
}

type clientLane struct {
	leases   []span          // [acquire returned, min(release called, valid until)]
	sections []span          // enter..exit, or first..last accepted write of a lease
	rejected []time.Duration // fenced writes the resource refused
	failed   []time.Duration // acquire attempts that were refused
	unknown  []time.Duration // acquires whose outcome is unknown
}

// span is one bar. Open: it never ended inside the history (no exit, no
// release and no expiry), so it is drawn up to the history's end.
type span struct {
	start, end time.Duration
	read       bool
	open       bool
}

func readLanes(h sim.History, clients int) lanes {
	l := lanes{byClient: map[int]*clientLane{}}
	for i := 0; i < clients; i++ {
		l.lane(i)
	}
	for _, op := range h.Ops {
		l.end = max(l.end, op.Return, op.At)
		switch op.Kind {
		case sim.KindWrite:
			l.fenced = true
		case sim.KindFault:
			l.faults = append(l.faults, checker.FaultWindow{ID: op.FaultID, Desc: op.Fault, Start: op.Call, End: op.Return})
		case sim.KindProbe:
			l.probes = append(l.probes, op)
		}
	}
	slices.SortStableFunc(l.faults, func(a, b checker.FaultWindow) int { return cmp.Compare(a.Start, b.Start) })
	l.readLeases(h)
	if l.fenced {
		l.readWrites(h)
	} else {
		l.readEnterExit(h)
	}
	slices.Sort(l.clients)
	return l
}

func (l *lanes) lane(client int) *clientLane {
	if c, ok := l.byClient[client]; ok {
		return c
	}
	c := &clientLane{}
	l.byClient[client] = c
	l.clients = append(l.clients, client)
	return c
}

type leaseKey struct {
	client int
	key    string
	token  string
}

// readLeases pairs ok acquires with releases last-in first-out per lease,
// so a reentrant lock's outer acquire lasts until the outer release; ok
// extends stretch the validity of every open acquire of their lease.
func (l *lanes) readLeases(h sim.History) {
	byLease := map[leaseKey][]sim.Op{}
	var order []leaseKey
	for _, op := range h.Ops {
		if op.Client == sim.NoClient {
			continue
		}
		switch {
		case op.Kind == sim.KindAcquire && op.Outcome == sim.Fail:
			l.lane(op.Client).failed = append(l.lane(op.Client).failed, op.Return)
		case op.Kind == sim.KindAcquire && op.Outcome == sim.Unknown:
			l.lane(op.Client).unknown = append(l.lane(op.Client).unknown, op.Return)
		case op.Kind == sim.KindAcquire && op.Outcome == sim.OK,
			op.Kind == sim.KindRelease,
			op.Kind == sim.KindExtend && op.Outcome == sim.OK:
			k := leaseKey{op.Client, op.Key, op.Token}
			if _, ok := byLease[k]; !ok {
				order = append(order, k)
			}
			byLease[k] = append(byLease[k], op)
		}
	}
	at := func(op sim.Op) time.Duration {
		if op.Kind == sim.KindAcquire {
			return op.Return
		}
		return op.Call
	}
	for _, k := range order {
		evs := byLease[k]
		slices.SortStableFunc(evs, func(a, b sim.Op) int { return cmp.Compare(at(a), at(b)) })
		type held struct {
			acq   sim.Op
			valid time.Duration // 0: no expiry
		}
		var open []held
		lane := l.lane(k.client)
		add := func(o held, stop time.Duration, released bool) {
			s := span{start: o.acq.Return, end: stop, read: o.acq.Mode == "read"}
			if o.valid > 0 && (!released || o.valid < stop) {
				s.end = o.valid
			} else if !released {
				s.open = true
				s.end = max(l.end, s.start)
			}
			if s.end > s.start {
				lane.leases = append(lane.leases, s)
			}
		}
		for _, e := range evs {
			switch e.Kind {
			case sim.KindAcquire:
				open = append(open, held{e, e.ValidUntil})
			case sim.KindExtend:
				for i := range open {
					if e.ValidUntil == 0 || open[i].valid == 0 {
						open[i].valid = 0
					} else {
						open[i].valid = max(open[i].valid, e.ValidUntil)
					}
				}
			case sim.KindRelease:
				if n := len(open); n > 0 {
					add(open[n-1], e.Call, true)
					open = open[:n-1]
				}
			}
		}
		for _, o := range open {
			add(o, 0, false)
		}
	}
}

// resourceOps are the operations the resource applied (Seq > 0), in its
// order. What never reached it had no effect there and is not drawn.
func resourceOps(h sim.History, kinds ...sim.Kind) []sim.Op {
	var out []sim.Op
	for _, op := range h.Ops {
		if op.Seq > 0 && slices.Contains(kinds, op.Kind) {
			out = append(out, op)
		}
	}
	slices.SortStableFunc(out, func(a, b sim.Op) int { return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Seq, b.Seq)) })
	return out
}

// readEnterExit draws a client's stay from the enter that found it outside
// to the exit that left it outside (nested enters of a reentrant lock are
// one stay), per key.
func (l *lanes) readEnterExit(h sim.History) {
	type stay struct {
		depth int
		s     span
	}
	type ck struct {
		client int
		key    string
	}
	in := map[ck]*stay{}
	var order []ck
	for _, op := range resourceOps(h, sim.KindEnter, sim.KindExit) {
		k := ck{op.Client, op.Key}
		st := in[k]
		if op.Kind == sim.KindEnter {
			if st == nil {
				st = &stay{s: span{start: op.At, read: op.Mode == "read"}}
				in[k] = st
				order = append(order, k)
			}
			st.depth++
			continue
		}
		if st == nil {
			continue
		}
		if st.depth--; st.depth == 0 {
			st.s.end = op.At
			lane := l.lane(op.Client)
			lane.sections = append(lane.sections, st.s)
			delete(in, k)
		}
	}
	for _, k := range order {
		if st, ok := in[k]; ok {
			st.s.end, st.s.open = l.end, true
			lane := l.lane(k.client)
			lane.sections = append(lane.sections, st.s)
			delete(in, k)
		}
	}
}

// readWrites draws a fenced section from the first to the last write of a
// lease the resource accepted, and each refused write as a mark.
func (l *lanes) readWrites(h sim.History) {
	type sec struct {
		client int
		key    string
		token  string
		fence  int64
	}
	idx := map[sec]int{}
	var secs []sec
	var spans []span
	for _, op := range resourceOps(h, sim.KindWrite) {
		if op.Outcome != sim.OK {
			if op.Outcome == sim.Fail {
				l.lane(op.Client).rejected = append(l.lane(op.Client).rejected, op.At)
			}
			continue
		}
		k := sec{op.Client, op.Key, op.Token, op.Fence}
		if i, ok := idx[k]; ok {
			spans[i].end = op.At
			continue
		}
		idx[k] = len(spans)
		secs = append(secs, k)
		spans = append(spans, span{start: op.At, end: op.At})
	}
	for i, k := range secs {
		lane := l.lane(k.client)
		lane.sections = append(lane.sections, spans[i])
	}
}

// overlap is one witness of an unsafe check, as the timeline marks it.
type overlap struct {
	check      string
	a, b       int // clients
	start, end time.Duration
	// disjoint: the intervals do not overlap (a token that went
	// backwards); start and end are then the two intervals' starts.
	disjoint bool
	faults   []checker.FaultWindow // as the checker attached them to the witness
}

// overlaps collects the witnesses of unsafe checks, once per pair of
// clients and window (exclusion and claim often report the same one).
func overlaps(r checker.Result) []overlap {
	var out []overlap
	seen := map[[4]int64]bool{}
	for _, c := range r.Checks {
		if c.Verdict != checker.Unsafe {
			continue
		}
		for _, w := range c.Witnesses {
			o := overlap{check: c.Name, a: w.A.Client, b: w.B.Client,
				start: max(w.A.Start, w.B.Start), end: min(w.A.End, w.B.End), faults: w.Faults}
			if o.end < o.start {
				o.disjoint = true
				o.start, o.end = min(w.A.Start, w.B.Start), max(w.A.Start, w.B.Start)
			}
			k := [4]int64{int64(min(o.a, o.b)), int64(max(o.a, o.b)), int64(o.start), int64(o.end)}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, o)
		}
	}
	return out
}
