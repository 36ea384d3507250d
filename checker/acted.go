package checker

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// Unacted is a fault of the history that did not do what its kind
// promises: the run did not reach the moment the fault was there to make,
// so whatever its verdict, it did not play a scenario that needs the
// fault.
type Unacted struct {
	FaultID int    `json:"fault_id"`
	Fault   string `json:"fault"` // its record's description
	// Why says, in words, how the history shows that it did not act.
	Why string `json:"why"`
}

func (u Unacted) String() string {
	return fmt.Sprintf("fault %d %s %s", u.FaultID, u.Fault, u.Why)
}

// FaultsUnacted reads, for every fault of h, whether it acted, by one rule
// per kind: what effect the kind promises and which records show that it
// happened. A fault acted when any of its records (by fault id) shows it
// did. The rules:
//
//   - any kind: its start failed (outcome fail): it never acted.
//   - pause-client, pause-node: the run's end cut it before its own end
//     (for: or until:), so the client (the node) never got past it while
//     the run went on; a pause without an end of its own is meant to last
//     to the end.
//   - failover left to Sentinel: no +switch-master for its master came
//     between the kill and the heal, so no replica was promoted.
//   - kill-node, failover: no client lock operation (acquire, extend,
//     release) was in flight at or after its start: no client met the node
//     down or back without its data.
//   - a cluster master cut off from the majority (cluster-partition-master):
//     the harness saw it neither refuse writes nor its replica elected
//     before the heal, so the cluster never split its slot's ownership.
//   - partition, drop, delay: no client the fault cut off had an operation
//     (on the lock or at the resource, a notified waiter's wait for the
//     unlock message included) in flight while it was on, nor held a lease
//     across it (a watchdog renews through the link): it cut no link in
//     use. A fault between nodes (replication) counts every client, whose
//     writes the link carries.
//
// Other kinds (client crashes, client and node clocks, and faults that do
// not say whom they hit) act by starting. Faults that never started at all
// have no record; the caller, who knows the faults planned, counts those.
func FaultsUnacted(h history.History) []Unacted {
	type fault struct {
		desc  string
		acted bool
		why   string
	}
	byID := map[int]*fault{}
	var ids []int
	var v *View
	view := func() View {
		if v == nil {
			r := Read(h)
			v = &r
		}
		return *v
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != history.KindFault {
			continue
		}
		f := byID[op.FaultID]
		if f == nil {
			f = &fault{desc: op.Fault}
			byID[op.FaultID] = f
			ids = append(ids, op.FaultID)
		}
		if f.acted {
			continue
		}
		if why := notActed(h, view, op); why != "" {
			f.why = why
		} else {
			f.acted = true
		}
	}
	slices.Sort(ids)
	var out []Unacted
	for _, id := range ids {
		if f := byID[id]; !f.acted {
			out = append(out, Unacted{FaultID: id, Fault: f.desc, Why: f.why})
		}
	}
	return out
}

// notActed says how the fault record op shows its fault did not act, or ""
// when it acted.
func notActed(h history.History, view func() View, op *history.Op) string {
	if op.Outcome == history.Fail {
		return "did not start: " + op.Err
	}
	tg := op.Target
	if tg == nil {
		return ""
	}
	a := tg.Kind.Attrs()
	switch {
	case a.Pauses && a.Hits == vocab.HitsClient:
		if op.Cut {
			return fmt.Sprintf("was cut off by the run's end at %v, %v after it began, before %s got past it", op.Return, op.Return-op.Call, clientsNamed(tg.Clients))
		}
	case a.Pauses && a.Hits == vocab.HitsNode:
		if op.Cut {
			return fmt.Sprintf("was cut off by the run's end at %v, %v after it began, before %s resumed", op.Return, op.Return-op.Call, nodesNamed(tg.Nodes))
		}
	case a.Isolates:
		if tg.Refused <= 0 && tg.Election <= 0 {
			return fmt.Sprintf("cut %s off for %v, but it did not refuse a write nor was its replica elected before the heal", nodesNamed(tg.Nodes), op.Return-op.Call)
		}
	case a.StopsNode:
		if a.Promotes && tg.Sentinel {
			if why := unpromoted(h, op); why != "" {
				return why
			}
		}
		if !slices.ContainsFunc(h.Ops, func(o history.Op) bool { return toLock(o) && o.Return >= op.Call }) {
			return fmt.Sprintf("met no client: no lock operation was in flight at or after the %s (%v)", tg.Kind, op.Call)
		}
	case a.Hits == vocab.HitsLink:
		cut := cutClients(tg)
		mine := func(c int) bool { return c >= 0 && (cut == nil || cut[c]) }
		inFlight := slices.ContainsFunc(h.Ops, func(o history.Op) bool {
			// A notified waiter listens on its subscriber connection:
			// its wait for the message is in flight on its links.
			if o.Kind == history.KindWait && o.WaitFrom > 0 && mine(o.Client) {
				return o.WaitFrom <= op.Return && o.Return >= op.Call
			}
			if !mine(o.Client) || !ownOp(o.Kind) {
				return false
			}
			from := o.Call
			if o.WaitFrom > 0 {
				from = o.WaitFrom
			}
			return from <= op.Return && max(o.Return, o.At) >= op.Call
		})
		// A lease held across it: the holder's renewals (a watchdog's,
		// which the history records only in part) used the link.
		held := slices.ContainsFunc(view().Leases, func(l LeaseWindow) bool {
			return mine(l.Client) && l.Start <= op.Return && (l.End >= op.Call || l.Ended == EndOpen)
		})
		if !inFlight && !held {
			return fmt.Sprintf("cut no link in use: no client it cut off had an operation in flight or held a lease from %v to %v", op.Call, op.Return)
		}
	}
	return ""
}

// ownOp: a client's own operation, on the lock or at the resource.
func ownOp(k history.Kind) bool {
	switch k {
	case history.KindAcquire, history.KindExtend, history.KindRelease,
		history.KindEnter, history.KindExit, history.KindWrite:
		return true
	}
	return false
}

// toLock: a client's operation that goes to the lock's nodes.
func toLock(o history.Op) bool {
	if o.Client < 0 {
		return false
	}
	switch o.Kind {
	case history.KindAcquire, history.KindExtend, history.KindRelease:
		return true
	}
	return false
}

// cutClients are the clients a network fault cuts off; nil when it is
// every client's traffic (its target names no client side, or a link
// between nodes, which carries every client's writes).
func cutClients(tg *history.Target) map[int]bool {
	if len(tg.Groups) == 0 {
		if len(tg.Clients) == 0 {
			return nil
		}
		out := map[int]bool{}
		for _, c := range tg.Clients {
			out[c] = true
		}
		return out
	}
	out := map[int]bool{}
	for _, g := range tg.Groups {
		for _, e := range g {
			if e == "clients" {
				return nil
			}
			if n, ok := strings.CutPrefix(e, "c"); ok {
				if i, err := strconv.Atoi(n); err == nil {
					out[i] = true
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// unpromoted says why Sentinel's failover of op's node did not promote a
// replica between the kill and the heal, or "" when it did.
func unpromoted(h history.History, op *history.Op) string {
	if len(op.Target.Nodes) == 0 {
		return ""
	}
	master := "locksim-n" + strconv.Itoa(op.Target.Nodes[0])
	var down time.Duration = -1
	for _, fo := range history.SentinelFailovers(h) {
		if fo.Master != master {
			continue
		}
		if fo.Switch > 0 && fo.Switch >= op.Call && fo.Switch <= op.Return {
			return ""
		}
		if fo.Down >= op.Call && fo.Down <= op.Return && down < 0 {
			down = fo.Down
		}
	}
	s := fmt.Sprintf("promoted no replica: Sentinel announced no +switch-master for %s between the kill (%v) and the heal (%v)", master, op.Call, op.Return)
	if down < 0 {
		return s + "; no sentinel even called the master down"
	}
	return s + fmt.Sprintf("; the first sentinel called it down at %v", down)
}

func clientsNamed(cs []int) string {
	if len(cs) == 1 {
		return "client " + strconv.Itoa(cs[0])
	}
	return "its clients"
}

func nodesNamed(ns []int) string {
	if len(ns) == 1 {
		return "node " + strconv.Itoa(ns[0])
	}
	return "its nodes"
}
