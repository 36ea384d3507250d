package report

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
)

// NodeRow is one node row of a run's timeline as laid out: the nodes it
// stands for (several when nodes a design does not use are folded into
// one row), its label, how many holds and spans it draws, and, when it
// draws nothing, why (the line written in the row).
type NodeRow struct {
	Nodes []int  `json:"nodes"`
	Label string `json:"label"`
	// Holds, States and Clocks count what the row draws: the lock key's
	// holds, spans the node did not serve normally, clock faults.
	Holds  int `json:"holds"`
	States int `json:"states"`
	Clocks int `json:"clocks"`
	// Empty says why the row draws nothing; "" when it draws something.
	Empty string `json:"empty,omitempty"`
}

// Content reports whether the row draws anything.
func (r NodeRow) Content() bool { return r.Holds+r.States+r.Clocks > 0 }

// NodeRows lays out the node rows of a run's timeline, as the chart
// draws them.
func NodeRows(h history.History, cfg history.Setup) []NodeRow {
	l := readLanes(h, cfg, nil)
	return l.layoutNodes(cfg)
}

// Why a node row draws nothing.
const (
	emptyUnused  = "not used by this design (single-node design)"
	emptyNoKey   = "no lock key observed on this node"
	emptyNotRead = "the design does not report its per-node replies, and the history has no reads of this node"
)

// layoutNodes decides the node rows: every node that has something to
// draw gets its row, and so does every node the design uses (all of a
// multi-node design's, node 0 of a single-node design's), with a line
// saying why it is empty when it is. The nodes a single-node design does
// not use and that have nothing to draw share one row saying so. It sets
// l.nodeRows and returns it exported.
func (l *lanes) layoutNodes(design history.Setup) []NodeRow {
	if l.cluster != nil {
		return l.layoutCluster()
	}
	single := design.Registered && !design.MultiNode
	asked := 0
	for _, n := range l.nodes {
		if !single || n.Node == 0 {
			asked = max(asked, n.Node+1)
		}
	}
	l.nodeRows = l.nodeRows[:0]
	var unused []int
	for _, n := range l.nodes {
		r := NodeRow{Nodes: []int{n.Node}, Label: fmt.Sprintf("node %d", n.Node),
			Holds: len(n.Holds), States: len(n.States), Clocks: len(n.Clocks)}
		if !r.Content() {
			switch {
			case single && n.Node > 0:
				unused = append(unused, n.Node)
				continue
			case n.Node >= asked:
				continue
			case !n.Observed:
				r.Empty = emptyNotRead
			default:
				r.Empty = emptyNoKey
			}
		}
		l.nodeRows = append(l.nodeRows, r)
	}
	if len(unused) > 0 {
		r := NodeRow{Nodes: unused, Label: "node " + nodeList(unused), Empty: emptyUnused}
		if len(unused) > 1 {
			r.Label = "nodes " + nodeList(unused)
		}
		l.nodeRows = append(l.nodeRows, r)
	}
	out := make([]NodeRow, len(l.nodeRows))
	copy(out, l.nodeRows)
	return out
}

// nodeList names nodes compactly: 1–4, or 1, 3.
func nodeList(ns []int) string {
	contiguous := true
	for i := 1; i < len(ns); i++ {
		contiguous = contiguous && ns[i] == ns[i-1]+1
	}
	if contiguous && len(ns) > 2 {
		return fmt.Sprintf("%d–%d", ns[0], ns[len(ns)-1])
	}
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprint(n))
	}
	return strings.Join(s, ", ")
}

// nodeLane is node n's lane, nil when there is none.
func (l *lanes) nodeLane(n int) *checker.NodeLane {
	for i := range l.nodes {
		if l.nodes[i].Node == n {
			return &l.nodes[i]
		}
	}
	return nil
}

// holdLabel is what a node hold's bar says: the token, or for a key with
// no TTL whose key it is and that it never expires.
func holdLabel(h checker.NodeHold) string {
	who := fmt.Sprintf("c%d", h.Client)
	if h.Client == history.NoClient {
		who = ""
	}
	label := h.Token
	switch {
	case h.Probe:
		return "probe"
	case h.NoTTL && who != "":
		return who + "'s key with no TTL"
	case h.NoTTL:
		return "key " + shortValue(h.Token) + " with no TTL"
	case who == "":
		label = "key " + shortValue(h.Token)
	case !strings.HasPrefix(label, who+"-"):
		label = fmt.Sprintf("client %d", h.Client) // a design whose value is not the token (a stamp)
	}
	if h.Failed {
		label += " (failed attempt)"
	}
	return label
}

// shortValue cuts a value read off a node to a label's length.
func shortValue(v string) string {
	if r := []rune(v); len(r) > 14 {
		return string(r[:12]) + "…"
	}
	return v
}
