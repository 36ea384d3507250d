package report

import (
	"slices"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// lanes is what the timeline draws: per client its lease windows and its
// stays at the resource, plus the harness's rows. Windows, stays and fault
// windows come from the checker's view of the history, so the chart draws
// exactly what the checks judged, and so do the failed acquires and the
// waits for the unlock message; the other marks (ok acquires, rejected
// writes) are read here.
type lanes struct {
	clients  []int // row order: client ids, ascending
	byClient map[int]*clientLane
	nodes    []checker.NodeLane // one per node (checker.Nodes)
	nodeRows []NodeRow          // the node rows drawn (layoutNodes)
	probes   []history.Op
	faults   []checker.FaultWindow // sorted by start
	end      time.Duration         // last instant the history mentions
	fenced   bool                  // sections are runs of accepted writes
	// failed counts the failed acquires by their reason in words.
	failed map[string]int
	// leaseFrom is, per client and token, when the ok acquire that made
	// the lease was sent.
	leaseFrom map[leaseKey]time.Duration
	leases    []checker.LeaseWindow
	// cluster is the Redis Cluster's topology as the harness read it;
	// nil on the other backends.
	cluster *clusterView
}

type leaseKey struct {
	client int
	token  string
}

type clientLane struct {
	leases   []span          // lease windows (checker.LeaseWindow)
	sections []span          // enter..exit, or first..last accepted write of a lease
	rejected []time.Duration // fenced writes the resource refused
	failed   []checker.FailedAcquire
	acquires []span // ok acquires, from their call to their return
	waits    []span // waits for the unlock message (checker.UnlockWait)
	extends  []extendMark
	lapses   []checker.Lapse // stretches an ok extend vouched for
}

// extendMark is one extend (a renewal) of the client's lease, at its
// return: ok, or refused or of unknown outcome.
type extendMark struct {
	at time.Duration
	ok bool
}

// span is one bar. Open: it never ended inside the history (no exit, no
// release and no expiry), so it is drawn up to the history's end.
type span struct {
	start, end time.Duration
	read       bool
	open       bool
}

// backendCluster is the Redis Cluster backend's name: its node rows are
// the servers, which a design's replies do not name (checker.ObservedNodes).
const backendCluster = "redis-cluster"

// readLanes reads everything the timeline draws: the clients' lanes
// (readClientLanes) and the node rows; v is h's View, nil when it is
// still to be read.
func readLanes(h history.History, setup history.Setup, v *checker.View) lanes {
	l := readClientLanes(h, setup, v)
	nodeLanes := checker.Nodes(h, setup.Nodes)
	if setup.Backend == backendCluster {
		nodeLanes = checker.ObservedNodes(h, setup.Nodes)
		l.cluster = readCluster(h, len(nodeLanes), l.faults)
	}
	if cluster := l.cluster; cluster != nil {
		// an election drawn replaces the instant its fault's node state
		// marks
		for i := range nodeLanes {
			nodeLanes[i].States = slices.DeleteFunc(nodeLanes[i].States, func(s checker.NodeState) bool {
				return s.Start == s.End && cluster.elected(s.FaultID)
			})
		}
	}
	l.nodes = nodeLanes
	return l
}

// readClientLanes is readLanes without the node rows (nodes and cluster
// stay empty): what summary.md counts, which every run writes, while
// reading the nodes' states costs as much again and only the timeline
// draws them.
func readClientLanes(h history.History, setup history.Setup, read *checker.View) lanes {
	clients := setup.Clients
	if read == nil {
		v := checker.Read(h)
		read = &v
	}
	v := *read
	l := lanes{byClient: map[int]*clientLane{}, faults: v.Faults, end: v.End, fenced: v.Fenced,
		failed: map[string]int{}, leaseFrom: map[leaseKey]time.Duration{}, leases: v.Leases}
	for i := 0; i < clients; i++ {
		l.lane(i)
	}
	for _, w := range v.Leases {
		lane := l.lane(w.Client)
		lane.leases = append(lane.leases, span{start: w.Start, end: w.End, read: w.Read, open: w.Ended == checker.EndOpen})
	}
	for _, x := range v.Lapses {
		l.lane(x.Client).lapses = append(l.lane(x.Client).lapses, x)
	}
	for _, s := range v.Sections {
		lane := l.lane(s.Client)
		lane.sections = append(lane.sections, span{start: s.Start, end: s.End, read: s.Read && !v.Fenced, open: s.Open})
	}
	for _, w := range v.Waits {
		l.lane(w.Client).waits = append(l.lane(w.Client).waits, span{start: w.Start, end: w.End})
	}
	for _, f := range v.Failed {
		l.lane(f.Client).failed = append(l.lane(f.Client).failed, f)
		l.failed[f.Words()]++
	}
	for _, op := range h.Ops {
		switch {
		case op.Kind == history.KindProbe:
			l.probes = append(l.probes, op)
		case op.Client == history.NoClient:
		case op.Kind == history.KindAcquire && op.Outcome == history.OK:
			l.lane(op.Client).acquires = append(l.lane(op.Client).acquires, span{start: op.Call, end: op.Return})
			if _, ok := l.leaseFrom[leaseKey{op.Client, op.Token}]; !ok {
				l.leaseFrom[leaseKey{op.Client, op.Token}] = op.Call
			}
		case op.Kind == history.KindExtend:
			l.lane(op.Client).extends = append(l.lane(op.Client).extends, extendMark{at: op.Return, ok: op.Outcome == history.OK})
		case op.Kind == history.KindWrite && op.Seq > 0 && op.Outcome == history.Fail:
			l.lane(op.Client).rejected = append(l.lane(op.Client).rejected, op.At)
		}
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

// overlap is one witness of an unsafe check, as the timeline marks it.
type overlap struct {
	check string
	a, b  int // clients
	// from is the earlier of the two intervals' starts.
	from       time.Duration
	start, end time.Duration
	// disjoint: the intervals do not overlap (a token that went
	// backwards); start and end are then the two intervals' starts.
	disjoint bool
	faults   []checker.FaultWindow // as the checker attached them to the witness
	// covered: a fenced design's leases overlapped, but its tokens grew
	// and the resource rejected the stale writes (claim covered).
	covered bool
	// vouchedBy: a claim witness whose overlap lies in a lapse of client
	// a's lease that an ok extend vouched for, that extend's return.
	vouchedBy time.Duration
}

// vouchedBy returns the return of the extend that vouched for a lapse of
// client o.a's lease overlapping o (a claim witness), or 0.
func (l lanes) vouchedBy(o overlap) time.Duration {
	if o.check != vocab.CheckClaim || l.byClient[o.a] == nil {
		return 0
	}
	for _, x := range l.byClient[o.a].lapses {
		if x.Start < o.end && o.start < x.End {
			return x.By
		}
	}
	return 0
}

// starved reports whether the witness is a starved client's (liveness):
// its wait, and the stretch of it in which the lock was free.
func (o overlap) starved() bool { return o.check == vocab.CheckLiveness }

// overlaps collects the witnesses of unsafe checks, and of a claim that
// fencing covered, once per pair of clients and window (exclusion and
// claim often report the same one).
func overlaps(r checker.Result) []overlap {
	var out []overlap
	seen := map[[4]int64]bool{}
	for _, c := range r.Checks {
		if c.Verdict != vocab.Unsafe && c.Verdict != vocab.Covered {
			continue
		}
		for _, w := range c.Witnesses {
			o := overlap{check: c.Name, a: w.A.Client, b: w.B.Client,
				start: max(w.A.Start, w.B.Start), end: min(w.A.End, w.B.End), faults: w.Faults,
				from:    min(w.A.Start, w.B.Start),
				covered: c.Verdict == vocab.Covered}
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
