package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
)

// On a Redis Cluster (backend redis-cluster) a node row is one server
// process as the harness read it (checker.ClusterRoles): the row's label
// names the roles it went through (master → replica), a teal band shades
// the stretches in which it served the lock key's slot as its master (its
// owner, which a failover or a reshard changes), a grey band the reads it
// did not answer; a failover's election, as the fault measured it (from
// the master's kill or the CLUSTER FAILOVER command until the replica
// served the slot in every node's view), is a bracket along the top of
// the old master's and the winner's rows with its length. A MOVED or ASK
// reply a client met (history.KindRedirect) is a small mark on that
// client's row.

// clusterView is what the chart draws of a Redis Cluster's topology.
type clusterView struct {
	key       string
	slot      int // the key's slot, as a cluster fault's record names it; -1 when none does
	roles     [][]checker.NodeRole
	elections []clusterElection
	// redirects per client: when each MOVED and ASK reply came
	redirects map[int][]redirectMark
}

// clusterElection is one failover's election as its fault record measured it.
type clusterElection struct {
	faultID    int
	from, to   int // the old master and the winner
	start, end time.Duration
}

type redirectMark struct {
	at    time.Duration
	event string // MOVED or ASK
}

// readCluster reads the cluster's view out of h and the fault windows;
// nil when the history's node records carry no roles.
func readCluster(h history.History, nodes int, faults []checker.FaultWindow) *clusterView {
	key, roles := checker.ClusterRoles(h, nodes)
	if roles == nil {
		return nil
	}
	cv := &clusterView{key: key, slot: -1, roles: roles, redirects: map[int][]redirectMark{}}
	for _, f := range faults {
		t := f.Target
		if t == nil {
			continue
		}
		if t.Slot > 0 {
			cv.slot = t.Slot
		}
		if t.Election > 0 && len(t.Nodes) == 2 {
			cv.elections = append(cv.elections, clusterElection{faultID: f.ID, from: t.Nodes[0], to: t.Nodes[1],
				start: f.Start, end: f.Start + t.Election})
		}
	}
	for _, op := range h.Ops {
		if op.Kind == history.KindRedirect && op.Client != history.NoClient {
			cv.redirects[op.Client] = append(cv.redirects[op.Client], redirectMark{op.Call, op.Event})
		}
	}
	return cv
}

// elected reports whether fault id's node states are drawn as an
// election instead.
func (cv *clusterView) elected(id int) bool {
	return slices.ContainsFunc(cv.elections, func(e clusterElection) bool { return e.faultID == id })
}

// Why a cluster node row draws nothing.
const (
	emptyOtherMaster  = "master of other slots: does not own the lock key's slot"
	emptyOwnerReplica = "replica of the slot's owner, never promoted; no copy of the key observed"
	emptyReplicas     = "replica of another master, never promoted"
)

// layoutCluster is layoutNodes on a Redis Cluster: a row for every node
// that was ever a master or served the key's slot (the masters, the
// replica a failover promoted, the owner's replica with its copy) or has
// something to draw; the replicas of other masters that never were
// promoted share one row.
func (l *lanes) layoutCluster() []NodeRow {
	l.nodeRows = l.nodeRows[:0]
	var folded []int
	for _, n := range l.nodes {
		var roles []checker.NodeRole
		if n.Node < len(l.cluster.roles) {
			roles = l.cluster.roles[n.Node]
		}
		r := NodeRow{Nodes: []int{n.Node}, Label: fmt.Sprintf("node %d", n.Node) + roleChanges(roles),
			Holds: len(n.Holds), States: len(n.States), Clocks: len(n.Clocks)}
		if !r.Content() {
			master := slices.ContainsFunc(roles, func(r checker.NodeRole) bool { return r.Role == history.RoleMaster })
			owner := slices.ContainsFunc(roles, checker.NodeRole.Owner)
			copyOf := slices.ContainsFunc(roles, func(r checker.NodeRole) bool { return r.Role == history.RoleReplica && r.Serves })
			switch {
			case owner: // its band says when it owned the slot
				r.Empty = emptyNoKey
			case master:
				r.Empty = emptyOtherMaster
			case copyOf:
				r.Empty = emptyOwnerReplica
			case !n.Observed:
				r.Empty = emptyNotRead
			default:
				folded = append(folded, n.Node)
				continue
			}
		}
		l.nodeRows = append(l.nodeRows, r)
	}
	if len(folded) > 0 {
		r := NodeRow{Nodes: folded, Label: "node " + nodeList(folded) + "\nreplica", Empty: emptyReplicas}
		if len(folded) > 1 {
			r.Label = "nodes " + nodeList(folded) + "\nreplicas"
			r.Empty = "replicas of other masters, never promoted"
		}
		l.nodeRows = append(l.nodeRows, r)
	}
	out := make([]NodeRow, len(l.nodeRows))
	copy(out, l.nodeRows)
	return out
}

// roleChanges is the second line of a cluster node's label: the roles it
// went through in order ("master → replica"); "" when it never answered.
func roleChanges(roles []checker.NodeRole) string {
	var seq []string
	for _, r := range roles {
		name := r.Role
		if name == "" {
			continue
		}
		if len(seq) == 0 || seq[len(seq)-1] != name {
			seq = append(seq, name)
		}
	}
	if len(seq) == 0 {
		return ""
	}
	return "\n" + strings.Join(seq, " → ")
}

var (
	ownerHue    = color.RGBA{R: 0, G: 128, B: 128, A: 255} // teal: the slot's owner
	redirectHue = color.RGBA{R: 0, G: 95, B: 95, A: 255}
	electionHue = color.RGBA{R: 60, G: 60, B: 60, A: 255}
)

// Glyphs of the redirects on a client's row.
var (
	movedGlyph = draw.GlyphStyle{Color: redirectHue, Radius: px(4), Shape: draw.TriangleGlyph{}}
	askGlyph   = draw.GlyphStyle{Color: redirectHue, Radius: px(3.5), Shape: draw.RingGlyph{}}
)

// redirectY is where a client row's redirect marks sit: under its
// section bar, above a network fault's strip.
const redirectY = -0.3

// electionY is where an election's bracket runs on a node row: along its
// top, above the key's bar.
const electionY = 0.36

// clusterMarks draws the slot's owner, the unanswered reads, the
// elections and the redirects.
type clusterMarks struct{ p *panel }

func (m clusterMarks) Plot(c draw.Canvas, pl *plot.Plot) {
	t := m.p.t
	cv := t.lanes.cluster
	if cv == nil {
		return
	}
	tx, ty := pl.Transforms(&c)
	for node, roles := range cv.roles {
		r := t.rowOf(rowNode, node)
		if r < 0 {
			continue
		}
		y := t.rowY(r)
		labelled := false
		for _, s := range roles {
			x0, x1, ok := xSpan(c, tx, s.Start, s.End, px(1))
			if !ok {
				continue
			}
			switch {
			case s.Owner():
				a := 0.13
				if s.Migrating() {
					a = 0.06
				}
				c.SetColor(alpha(ownerHue, a))
				c.Fill(rect(x0, ty(y-rowHalf), x1, ty(y+rowHalf)))
				txt := m.ownerText()
				if s.Migrating() {
					txt = "slot migrating away: answers ASK"
				} else if labelled {
					continue
				}
				labelled = labelled || !s.Migrating()
				sty := textStyle(10.5, true, shade(ownerHue, 0.2))
				sty.YAlign = draw.YCenter
				var at []vg.Point
				for _, dx := range []float64{4, 40, 80} {
					for _, ly := range []float64{y - 0.3, y + 0.26, y + holdY, y - 0.2} {
						at = append(at, vg.Point{X: max(x0, c.Min.X) + px(dx), Y: ty(ly)})
					}
				}
				m.p.labels.put(c, sty, txt, at...)
			case s.Importing():
				c.SetColor(alpha(ownerHue, 0.06))
				c.Fill(rect(x0, ty(y-rowHalf), x1, ty(y+rowHalf)))
				sty := textStyle(10.5, true, shade(ownerHue, 0.2))
				sty.YAlign = draw.YCenter
				var at []vg.Point
				for _, dx := range []float64{4, 40, 80} {
					for _, ly := range []float64{y - 0.3, y + 0.26} {
						at = append(at, vg.Point{X: max(x0, c.Min.X) + px(dx), Y: ty(ly)})
					}
				}
				m.p.labels.put(c, sty, "slot migrating in: key read with ASKING", at...)
			case s.Role == "":
				c.SetColor(alpha(downHue, shadeUnseen))
				c.Fill(rect(x0, ty(y-rowHalf), x1, ty(y+rowHalf)))
			}
		}
	}
	for _, e := range cv.elections {
		for _, node := range []int{e.from, e.to} {
			r := t.rowOf(rowNode, node)
			if r < 0 {
				continue
			}
			x0, x1, ok := xSpan(c, tx, e.start, e.end, px(2))
			if !ok {
				continue
			}
			y := t.rowY(r)
			yl, h := ty(y+electionY), px(5)
			line := draw.LineStyle{Color: electionHue, Width: px(1.5)}
			c.StrokeLine2(line, x0, yl, x1, yl)
			c.StrokeLine2(line, x0, yl-h, x0, yl+h)
			c.StrokeLine2(line, x1, yl-h, x1, yl+h)
			m.p.labels.line(x0, yl, x1, yl)
			if node != e.to {
				continue
			}
			sty := textStyle(10.5, true, electionHue)
			sty.YAlign = draw.YCenter
			texts := []string{fmt.Sprintf("election %s (F%d): node %d replaces node %d", fmtMS(e.end-e.start), e.faultID, e.to, e.from),
				fmt.Sprintf("election %s (F%d)", fmtMS(e.end-e.start), e.faultID)}
			var at []vg.Point
			for _, ly := range []float64{y + electionY - 0.16, y - 0.3} {
				at = append(at, vg.Point{X: x0 + px(4), Y: ty(ly)}, vg.Point{X: x1 + px(4), Y: ty(ly)})
			}
			at = append(at, vg.Point{X: x1 + px(4), Y: ty(y + electionY)})
			m.p.labels.putShort(c, sty, texts, at...)
		}
	}
	for r, rw := range t.rows {
		if rw.kind != rowClient {
			continue
		}
		y := ty(t.rowY(r) + redirectY)
		for _, mk := range cv.redirects[rw.id] {
			x := tx(ms(mk.at))
			if x < c.Min.X || x > c.Max.X {
				continue
			}
			g := movedGlyph
			if mk.event == "ASK" {
				g = askGlyph
			}
			c.DrawGlyphNoClip(g, vg.Point{X: x, Y: y})
			r := g.Radius + px(1)
			m.p.labels.avoid(vg.Rectangle{Min: vg.Point{X: x - r, Y: y - r}, Max: vg.Point{X: x + r, Y: y + r}})
		}
	}
}

// ownerText is the label of the slot's owner band.
func (m clusterMarks) ownerText() string {
	if s := m.p.t.lanes.cluster.slot; s >= 0 {
		return fmt.Sprintf("owns slot %d (%s)", s, m.p.t.lanes.cluster.key)
	}
	return "owns " + m.p.t.lanes.cluster.key + "'s slot"
}

// clusterLegend explains the cluster marks this chart draws.
func (t *timeline) clusterLegend() []legendItem {
	cv := t.lanes.cluster
	if cv == nil {
		return nil
	}
	var owner, migrating, unanswered bool
	for _, roles := range cv.roles {
		for _, r := range roles {
			owner = owner || r.Owner() && !r.Migrating()
			migrating = migrating || r.Owner() && r.Migrating() || r.Importing()
			unanswered = unanswered || r.Role == ""
		}
	}
	var moved, ask bool
	for _, ms := range cv.redirects {
		for _, m := range ms {
			moved = moved || m.event != "ASK"
			ask = ask || m.event == "ASK"
		}
	}
	var items []legendItem
	fill := func(hue color.RGBA, a float64) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			c.SetColor(alpha(hue, a))
			c.Fill(b.Path())
		}
	}
	if owner {
		items = append(items, legendItem{"cluster: the master serving the lock key's slot (its owner), as the harness read it", fill(ownerHue, 0.13)})
	}
	if migrating {
		items = append(items, legendItem{"cluster: the slot migrating, from its owner (answers ASK) to the master importing it", fill(ownerHue, 0.06)})
	}
	if unanswered {
		items = append(items, legendItem{"cluster: node did not answer the harness's read", fill(downHue, shadeUnseen)})
	}
	if len(cv.elections) > 0 {
		items = append(items, legendItem{"cluster failover: election, fault → replica serving the slot (measured)", func(c draw.Canvas, b vg.Rectangle) {
			mid := (b.Min.Y + b.Max.Y) / 2
			line := draw.LineStyle{Color: electionHue, Width: px(1.5)}
			c.StrokeLine2(line, b.Min.X, mid, b.Max.X, mid)
			c.StrokeLine2(line, b.Min.X, mid-px(5), b.Min.X, mid+px(5))
			c.StrokeLine2(line, b.Max.X, mid-px(5), b.Max.X, mid+px(5))
		}})
	}
	glyph := func(g draw.GlyphStyle) func(draw.Canvas, vg.Rectangle) {
		return func(c draw.Canvas, b vg.Rectangle) {
			c.DrawGlyphNoClip(g, vg.Point{X: (b.Min.X + b.Max.X) / 2, Y: (b.Min.Y + b.Max.Y) / 2})
		}
	}
	if moved {
		items = append(items, legendItem{"MOVED reply the client met (it followed it)", glyph(movedGlyph)})
	}
	if ask {
		items = append(items, legendItem{"ASK reply the client met (slot migrating)", glyph(askGlyph)})
	}
	return items
}
