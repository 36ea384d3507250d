package checker

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
)

// Failover is one Sentinel failover episode as every reader of a history
// tells it (summary.md's Failover section, the timeline's phases on the
// master's row, the bench's latency chart): the sentinels' episode
// (history.SentinelFailovers), the master's node and the fault that
// brought the master down.
type Failover struct {
	history.SentinelFailover
	// Node is the master's node index (Sentinel's name locksim-n<i>), -1
	// when the name carries none.
	Node int
	// Fault is the failover, kill-node or pause-node fault that brought
	// the master down: the last one on the master's node (on any node
	// when Node is -1) that started after that node's previous episode
	// ended and before the first +sdown. Its ID is 0 when no fault did.
	Fault history.Op
	// From is when the master went down: the fault's start, else the
	// first +sdown.
	From time.Duration
	// Until is when the episode's last phase ends: End, or the history's
	// last instant while the episode was still going.
	Until time.Duration
}

// HasFault reports whether a fault brought the master down.
func (f Failover) HasFault() bool { return f.Fault.FaultID != 0 }

// Failovers reads the Sentinel failover episodes in h, in order of their
// start, each with the fault that brought its master down.
func Failovers(h history.History) []Failover {
	var last time.Duration
	for _, op := range h.Ops {
		last = max(last, op.Return)
	}
	var out []Failover
	prev := map[int]time.Duration{} // per node, its previous episode's end: a fault before it is not this one's
	for _, fo := range history.SentinelFailovers(h) {
		f := Failover{SentinelFailover: fo, Node: -1, From: fo.Down, Until: fo.End}
		if i, err := strconv.Atoi(strings.TrimPrefix(fo.Master, "locksim-n")); err == nil && i >= 0 {
			f.Node = i
		}
		if fo.End == 0 {
			f.Until = max(last, fo.Down)
		}
		if op, ok := downFault(h, f.Node, prev[f.Node], fo.Down); ok {
			f.Fault, f.From = op, op.Call
		}
		prev[f.Node] = max(prev[f.Node], f.Until)
		out = append(out, f)
	}
	return out
}

// downFault is the last failover, kill-node or pause-node fault on node
// (any node when node is -1) that started after since and before a
// sentinel called the master down.
func downFault(h history.History, node int, since, down time.Duration) (history.Op, bool) {
	var best history.Op
	found := false
	for _, op := range h.Ops {
		if op.Kind != history.KindFault || op.Outcome == history.Fail || op.Target == nil || op.Call > down || op.Call < since {
			continue
		}
		if node >= 0 && !slices.Contains(op.Target.Nodes, node) {
			continue
		}
		if op.Target.Kind.Attrs().StopsNode && (!found || op.Call > best.Call) {
			best, found = op, true
		}
	}
	return best, found
}

// SentinelState is one state of node Node's master through Sentinel's
// failover.
type SentinelState struct {
	Node int
	NodeState
}

// SentinelStates reads Sentinel's failovers in h as node states: from the
// first +sdown to the quorum's +odown "master down (Sentinel)", then to the
// +switch-master "failover in progress" (to its end, or the history's,
// when there was none). FaultID is 0: the sentinels are no fault.
func SentinelStates(h history.History) []SentinelState {
	var out []SentinelState
	for _, fo := range Failovers(h) {
		if fo.Node < 0 {
			continue
		}
		odown := fo.ODown
		if odown == 0 {
			odown = fo.Until
		}
		out = append(out, SentinelState{fo.Node, NodeState{State: "master down (Sentinel)", Start: fo.Down, End: odown}})
		if odown < fo.Until {
			out = append(out, SentinelState{fo.Node, NodeState{State: "failover in progress", Start: odown, End: fo.Until}})
		}
	}
	return out
}
