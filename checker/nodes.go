package checker

import (
	"cmp"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// NodeLane is one Redis node as the history shows it: whose token the lock
// keys held there over time, when the node was down or paused, and its
// clock offset while a clock fault acted on it.
//
// It is derived, not observed: a hold starts when an acquire that the
// node granted (Op.Granted) was sent, and ends at the first of its
// client's release of that token being sent, the end of the failed
// attempt that set it (its unlock round), its expiry by the node's clock
// (the acquire's TTL, with every jump and rate change of that clock
// counted), a kill that lost the node's data or a failover (taken as
// losing every key the node held), or a later grant of the key
// on the node to another token (a takeover). Where the design's operations
// do not say what a node held (a design that does not report its per-node
// replies, a key set by an acquire whose outcome is unknown), the
// harness's own reads of the node (history.KindNode) do: their holds are
// added where no derived hold overlaps them.
type NodeLane struct {
	Node   int          `json:"node"`
	Holds  []NodeHold   `json:"holds,omitempty"`
	States []NodeState  `json:"states,omitempty"`
	Clocks []NodeOffset `json:"clocks,omitempty"`
	// Observed: the history has the harness's reads of this node.
	Observed bool `json:"observed,omitempty"`
}

// NodeHold is one token on one key of one node.
type NodeHold struct {
	Client int           `json:"client"`
	Key    string        `json:"key"`
	Token  string        `json:"token,omitempty"`
	Start  time.Duration `json:"start"`
	End    time.Duration `json:"end"`
	// Ended says why it ended: released, expired, undone (the failed
	// attempt's unlock round), lost (the node's data), taken (another
	// token was granted there) or open.
	Ended string `json:"ended"`
	// Failed: set by an attempt that did not get the lock.
	Failed bool `json:"failed,omitempty"`
	// Observed: read off the harness's node records, not derived from
	// the design's operations; Token is then the value the key held.
	Observed bool `json:"observed,omitempty"`
	// Probe: an observed key that appeared while the liveness probe, and
	// no client, was trying (Client is NoClient).
	Probe bool `json:"probe,omitempty"`
	// NoTTL: the key had no TTL (at the hold's last read): nothing but a
	// delete would ever end it.
	NoTTL bool `json:"no_ttl,omitempty"`
}

// NodeState is a span in which a node did not serve normally.
type NodeState struct {
	State   string        `json:"state"` // down, paused, failover
	Start   time.Duration `json:"start"`
	End     time.Duration `json:"end"`
	FaultID int           `json:"fault_id"`
}

// NodeOffset is a node clock fault in force: from Start, the node's clock
// runs Offset ahead of true time (growing at Rate).
type NodeOffset struct {
	Offset  time.Duration `json:"offset"`
	Rate    float64       `json:"rate,omitempty"`
	Start   time.Duration `json:"start"`
	End     time.Duration `json:"end"`
	FaultID int           `json:"fault_id"`
}

// Ends of a node hold besides the lease's own.
const (
	HoldUndone = "undone"
	HoldLost   = "lost"
	HoldTaken  = "taken"
)

// Nodes derives the lanes of nodes 0..n-1 (more when the history names a
// higher node).
func Nodes(h history.History, n int) []NodeLane { return nodeLanes(h, n, true) }

// ObservedNodes is Nodes without the holds derived from the design's
// replies: the lanes of a topology whose servers are not the nodes a design
// names (on a Redis Cluster a single-key design speaks to the whole cluster
// as its node 0), where only what the harness read off each server says
// which one held a key.
func ObservedNodes(h history.History, n int) []NodeLane { return nodeLanes(h, n, false) }

// nodeLanes is Nodes; derive says whether the design's replies give holds.
func nodeLanes(h history.History, n int, derive bool) []NodeLane {
	end := historyEnd(h)
	for _, op := range h.Ops {
		for _, g := range op.Granted {
			n = max(n, g+1)
		}
		if op.Target != nil {
			for _, g := range op.Target.Nodes {
				n = max(n, g+1)
			}
		}
		if op.Kind == history.KindNode {
			n = max(n, op.Node+1)
		}
	}
	lanes := make([]NodeLane, n)
	var clockEvents = make([][]nodeClockEvent, n)
	var losses = make([][]time.Duration, n)
	for i := range lanes {
		lanes[i].Node = i
	}
	for _, op := range h.Ops {
		if op.Kind != history.KindFault || op.Target == nil || op.Outcome == history.Fail {
			continue
		}
		t := op.Target
		for _, node := range t.Nodes {
			if node < 0 || node >= n {
				continue
			}
			l := &lanes[node]
			a := t.Kind.Attrs()
			switch {
			case a.Hits == vocab.HitsNodeClock && a.Clock == vocab.ClockJump:
				l.Clocks = append(l.Clocks, NodeOffset{Offset: t.ClockJump, Start: op.Call, End: op.Return, FaultID: op.FaultID})
				clockEvents[node] = append(clockEvents[node], nodeClockEvent{at: op.Call, jump: t.ClockJump})
			case a.Hits == vocab.HitsNodeClock && a.Clock == vocab.ClockRate:
				l.Clocks = append(l.Clocks, NodeOffset{Rate: t.ClockRate, Start: op.Call, End: op.Return, FaultID: op.FaultID})
				clockEvents[node] = append(clockEvents[node],
					nodeClockEvent{at: op.Call, rate: t.ClockRate, setRate: true},
					nodeClockEvent{at: op.Return, rate: 1, setRate: true})
			case a.NodeState != "":
				// A failover's replica takes over at once (an instant);
				// what it never got is gone, taken as every key the node
				// held (replication behind by more than a TTL, as the
				// scenarios set it). A killed node is down until its
				// restart.
				end := op.Return
				switch {
				case a.Span == vocab.SpanInstant:
					end = op.Call
				case a.Span == vocab.SpanUntilRestart && t.Down >= 0:
					end = min(op.Call+t.Down, op.Return)
				}
				l.States = append(l.States, NodeState{State: a.NodeState, Start: op.Call, End: end, FaultID: op.FaultID})
				if a.LosesKeys && !t.KeepData {
					losses[node] = append(losses[node], op.Call)
				}
			}
		}
	}
	for i := range clockEvents {
		slices.SortStableFunc(clockEvents[i], func(a, b nodeClockEvent) int { return cmp.Compare(a.at, b.at) })
		slices.Sort(losses[i])
	}

	// The lock operations in time order: grants from the attempt's call,
	// releases from theirs.
	type event struct {
		at time.Duration
		op *history.Op
	}
	var evs []event
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case !derive, op.Client == history.NoClient:
		case op.Kind == history.KindAcquire && len(op.Granted) > 0,
			op.Kind == history.KindRelease,
			op.Kind == history.KindExtend && op.Outcome == history.OK && op.TTL > 0:
			evs = append(evs, event{op.Call, op})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.at, b.at) })

	type openHold struct {
		hold   NodeHold
		read   bool
		expiry time.Duration // forever when none
	}
	open := make([][]*openHold, n) // per node
	closeHold := func(node int, o *openHold, at time.Duration, why string) {
		h := o.hold
		if o.expiry <= at {
			at, why = o.expiry, EndExpired
		}
		for _, loss := range losses[node] {
			if loss > h.Start && loss < at { // a grant at the very instant comes after it
				at, why = loss, HoldLost
				break
			}
		}
		h.End, h.Ended = max(at, h.Start), why
		lanes[node].Holds = append(lanes[node].Holds, h)
	}
	for _, e := range evs {
		op := e.op
		switch op.Kind {
		case history.KindAcquire:
			for _, node := range op.Granted {
				if node < 0 || node >= n {
					continue
				}
				// The same token again (a reentrant nested acquire)
				// renews its hold; readers share the key; any other
				// hold of the key must have expired, been lost or been
				// overwritten by now.
				read := op.Mode == "read"
				renewed := false
				keep := open[node][:0]
				for _, o := range open[node] {
					switch {
					case o.hold.Key != op.Key, o.read && read:
					case o.hold.Token == op.Token && o.hold.Client == op.Client && op.Outcome == history.OK:
						if op.TTL > 0 && o.expiry > op.Call {
							o.expiry = nodeExpiry(clockEvents[node], op.Call, op.TTL)
						}
						renewed = true
					default:
						closeHold(node, o, op.Call, HoldTaken)
						continue
					}
					keep = append(keep, o)
				}
				open[node] = keep
				if renewed {
					continue
				}
				o := &openHold{hold: NodeHold{Client: op.Client, Key: op.Key, Token: op.Token, Start: op.Call, Failed: op.Outcome != history.OK},
					read: read, expiry: forever}
				if op.TTL > 0 {
					o.expiry = nodeExpiry(clockEvents[node], op.Call, op.TTL)
				}
				if op.Outcome != history.OK {
					closeHold(node, o, op.Return, HoldUndone)
					continue
				}
				open[node] = append(open[node], o)
			}
		case history.KindExtend:
			for node := range open {
				for _, o := range open[node] {
					if o.hold.Token == op.Token && o.hold.Client == op.Client && o.expiry > op.Call {
						o.expiry = nodeExpiry(clockEvents[node], op.Call, op.TTL)
					}
				}
			}
		case history.KindRelease:
			for node := range open {
				keep := open[node][:0]
				for _, o := range open[node] {
					if o.hold.Token == op.Token && o.hold.Client == op.Client && o.hold.Key == op.Key {
						closeHold(node, o, op.Call, EndReleased)
						continue
					}
					keep = append(keep, o)
				}
				open[node] = keep
			}
		}
	}
	for node := range open {
		for _, o := range open[node] {
			closeHold(node, o, forever, EndOpen)
		}
	}
	for i := range lanes {
		for j := range lanes[i].Holds {
			if h := &lanes[i].Holds[j]; h.End == forever {
				h.End, h.Ended = max(end, h.Start), EndOpen
			}
		}
		slices.SortStableFunc(lanes[i].Holds, func(a, b NodeHold) int { return cmp.Compare(a.Start, b.Start) })
	}
	observed, seen := observedHolds(h, n, end)
	addObserved(lanes, observed, seen)
	return lanes
}

// nodeClockEvent is a change of a node's clock: a forward jump, or a new
// rate from then on.
type nodeClockEvent struct {
	at      time.Duration
	jump    time.Duration
	rate    float64
	setRate bool
}

// nodeExpiry is when a key set at true time set with ttl expires by a node
// clock that changed at evs: the first instant the node clock has advanced
// ttl since set. forever when a frozen clock never gets there.
func nodeExpiry(evs []nodeClockEvent, set, ttl time.Duration) time.Duration {
	rate := 1.0
	for _, e := range evs {
		if e.at > set {
			break
		}
		if e.setRate {
			rate = e.rate
		}
	}
	left, cur := float64(ttl), set
	for _, e := range evs {
		if e.at <= set {
			continue // a change at the very instant of the set counts as before it
		}
		if adv := float64(e.at-cur) * rate; adv >= left {
			return cur + time.Duration(left/rate)
		} else {
			left -= adv
		}
		cur = e.at
		if e.setRate {
			rate = e.rate
			continue
		}
		if left -= float64(e.jump); left <= 0 {
			return cur
		}
	}
	if rate <= 0 {
		return forever
	}
	return cur + time.Duration(left/rate)
}
