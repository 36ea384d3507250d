package explore

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// Coverage is which (point, fault kind) pairs an exploration reached: for
// each of the design's points and each fault kind, how many faults of the
// kind started at the point (their `when:` trigger came). A fault at a
// time reaches no point; a pair is reachable when the exploration draws
// the kind (every point is one the design reaches).
type Coverage struct {
	// Guided: random drawing favoured the pairs not yet reached.
	Guided bool     `json:"guided"`
	Points []string `json:"points"`
	// Kinds are the grid's columns, every kind a schedule can hold; Drawn
	// those the exploration drew from (the others cannot be reached).
	Kinds  []string `json:"kinds"`
	Drawn  []string `json:"drawn"`
	Counts [][]int  `json:"counts"` // [point][kind]
}

// reach tallies Coverage's counts while an exploration runs.
type reach struct {
	mu     sync.Mutex
	guided bool
	points []string
	drawn  []string
	counts map[[2]string]int
}

func newReach(cfg Config, points []string) *reach {
	r := &reach{guided: !cfg.Exhaustive && !cfg.Unguided, points: points, counts: map[[2]string]int{}}
	if !slices.Equal(cfg.Kinds, []vocab.Kind{KindNone}) {
		r.drawn = vocab.KindStrings(cfg.Kinds)
	}
	return r
}

// reachedBy lists the (point, kind) pairs of s's faults whose point
// trigger came in the run (unfired: the faults, 1-based, that never
// acted).
func reachedBy(s *scenarios.Scenario, unfired []int) [][2]string {
	var out [][2]string
	for i, f := range s.Faults {
		if f.When == nil || slices.Contains(unfired, i+1) {
			continue
		}
		out = append(out, [2]string{f.When.Point, string(f.Kind)})
	}
	return out
}

func (r *reach) add(pairs [][2]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range pairs {
		r.counts[p]++
	}
}

// coverage is the tally as a Coverage.
func (r *reach) coverage() *Coverage {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &Coverage{Guided: r.guided, Points: slices.Clone(r.points), Kinds: gridKinds(r.drawn), Drawn: slices.Clone(r.drawn)}
	if c.Drawn == nil {
		c.Drawn = []string{}
	}
	c.Counts = make([][]int, len(c.Points))
	for i, p := range c.Points {
		c.Counts[i] = make([]int, len(c.Kinds))
		for k, kind := range c.Kinds {
			c.Counts[i][k] = r.counts[[2]string{p, kind}]
		}
	}
	return c
}

// gridKinds are the columns: every kind a random schedule can hold, and
// any other kind drawn.
func gridKinds(drawn []string) []string {
	out := vocab.KindStrings(faults.RandomKinds())
	for _, k := range drawn {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Count is how many faults of kind started at point (0 when either is
// not in the grid).
func (c *Coverage) Count(point, kind string) int {
	i, k := slices.Index(c.Points, point), slices.Index(c.Kinds, kind)
	if i < 0 || k < 0 {
		return 0
	}
	return c.Counts[i][k]
}

// Reachable reports whether kind can be reached at the grid's points: the
// exploration draws it.
func (c *Coverage) Reachable(kind string) bool { return slices.Contains(c.Drawn, kind) }

// Reached counts the reachable pairs reached, and the reachable pairs.
func (c *Coverage) Reached() (reached, reachable int) {
	for i := range c.Points {
		for k, kind := range c.Kinds {
			if !c.Reachable(kind) {
				continue
			}
			reachable++
			if c.Counts[i][k] > 0 {
				reached++
			}
		}
	}
	return reached, reachable
}

// merge adds o's counts to c (a nil c or o is none).
func (c *Coverage) merge(o *Coverage) *Coverage {
	if o == nil {
		return c
	}
	if c == nil {
		m := &Coverage{Guided: o.Guided, Points: slices.Clone(o.Points), Drawn: slices.Clone(o.Drawn)}
		m.Kinds = slices.Clone(o.Kinds)
		for _, row := range o.Counts {
			m.Counts = append(m.Counts, slices.Clone(row))
		}
		return m
	}
	c.Guided = c.Guided && o.Guided
	for _, k := range o.Drawn {
		if !slices.Contains(c.Drawn, k) {
			c.Drawn = append(c.Drawn, k)
		}
	}
	for _, k := range o.Kinds {
		if !slices.Contains(c.Kinds, k) {
			c.Kinds = append(c.Kinds, k)
			for i := range c.Counts {
				c.Counts[i] = append(c.Counts[i], 0)
			}
		}
	}
	for i, p := range o.Points {
		ci := slices.Index(c.Points, p)
		if ci < 0 {
			c.Points = append(c.Points, p)
			c.Counts = append(c.Counts, make([]int, len(c.Kinds)))
			ci = len(c.Points) - 1
		}
		for k, kind := range o.Kinds {
			if i < len(o.Counts) && k < len(o.Counts[i]) {
				c.Counts[ci][slices.Index(c.Kinds, kind)] += o.Counts[i][k]
			}
		}
	}
	return c
}

// markdown is summary.md's coverage grid: points as rows, kinds as
// columns; a count, "-" for a reachable pair never reached, blank for a
// kind the exploration does not draw.
func (c *Coverage) markdown() string {
	if c == nil || len(c.Points) == 0 {
		return ""
	}
	var b strings.Builder
	reached, reachable := c.Reached()
	b.WriteString("## Coverage: points x fault kinds\n\n")
	fmt.Fprintf(&b, "How many faults of each kind started at each point (their `when:` trigger came; faults at a time reach no point). "+
		"`-`: reachable, never reached; blank: a kind this exploration does not draw. %d of %d reachable pairs reached", reached, reachable)
	if c.Guided {
		b.WriteString("; drawing favoured the pairs not yet reached")
	}
	b.WriteString(".\n\n| point |")
	for _, k := range c.Kinds {
		fmt.Fprintf(&b, " %s |", k)
	}
	b.WriteString("\n|---|")
	for range c.Kinds {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, p := range c.Points {
		fmt.Fprintf(&b, "| %s |", p)
		for k, kind := range c.Kinds {
			switch {
			case !c.Reachable(kind):
				b.WriteString("  |")
			case c.Counts[i][k] == 0:
				b.WriteString(" - |")
			default:
				fmt.Fprintf(&b, " %d |", c.Counts[i][k])
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}
