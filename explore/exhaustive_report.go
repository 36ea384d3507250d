package explore

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/vocab"
)

// Sweep is what a bounded sweep (Config.Exhaustive) ran, tier by tier,
// and the statement it supports.
type Sweep struct {
	Points int `json:"points"` // the design's points the singles trigger at
	// Kinds are the fault kinds swept; Narrowed says they are fewer than
	// every kind the design can meet (--kinds), which the statement names.
	Kinds    []string `json:"kinds"`
	Narrowed bool     `json:"narrowed,omitempty"`
	// World is what every schedule shares, e.g. "2 clients, 1 node, ttl
	// 500ms" (a single-master design runs on one node).
	World string `json:"world"`
	// Elapsed is the sweep's wall time in seconds, before any shrinking.
	Elapsed float64 `json:"elapsed_s"`
	Singles Tier    `json:"singles"`
	Pairs   Tier    `json:"pairs"`
	// Statement says in one sentence what the singles showed: no
	// violation under any of them, or how many broke the design and how;
	// or, when they did not all run, that there is no bound.
	Statement string `json:"statement"`
}

// Tier is one tier of a sweep: the schedules of one or two faults.
type Tier struct {
	// Exist counts the tier's schedules distinct up to renaming clients
	// (and the nodes of a multi-node design); Unreduced counts them with
	// renamings.
	Exist     int64 `json:"exist"`
	Unreduced int64 `json:"unreduced"`
	Ran       int   `json:"ran"`
	NotPlayed int   `json:"not_played"` // ran, but no lease was granted
	// Violating counts the runs that were not safe; Signatures groups them by
	// signature, most first.
	Violating  int             `json:"violating"`
	Signatures []SignatureRuns `json:"signatures,omitempty"`
}

// SignatureRuns is one signature and how many runs of a tier showed it.
type SignatureRuns struct {
	Signature string `json:"signature"`
	Runs      int    `json:"runs"`
}

// sweepTiers tallies the tiers while the sweep runs.
type sweepTiers struct {
	mu      sync.Mutex
	singles int // schedules below this index are singles
	tier    [2]Tier
	sigs    [2]map[string]int
}

func (t *sweepTiers) add(j int, o outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := 0
	if j >= t.singles {
		i = 1
	}
	t.tier[i].Ran++
	if o.NotPlayed {
		t.tier[i].NotPlayed++
	}
	if o.Violation() {
		t.tier[i].Violating++
		if t.sigs[i] == nil {
			t.sigs[i] = map[string]int{}
		}
		t.sigs[i][o.Signature()]++
	}
}

// sweep is the report of plan's sweep as tallied.
func (sc *scheduler) sweep(algo string) *Sweep {
	if sc.plan == nil {
		return nil
	}
	p, t := sc.plan, sc.tiers
	t.mu.Lock()
	defer t.mu.Unlock()
	sw := &Sweep{Points: len(p.points), Kinds: vocab.KindStrings(p.kinds), Singles: t.tier[0], Pairs: t.tier[1],
		Narrowed: len(p.kinds) < len(DefaultKinds(algo)),
		World:    fmt.Sprintf("%s, %s, ttl %s", plural(p.cfg.Clients, "client"), plural(p.nodes, "node"), p.cfg.TTL),
		Elapsed:  time.Since(sc.began).Seconds()}
	sw.Singles.Exist, sw.Singles.Unreduced = int64(len(p.reps)), int64(len(p.units))
	sw.Pairs.Exist, sw.Pairs.Unreduced = p.pairs, p.pairsAll
	sw.Singles.Signatures, sw.Pairs.Signatures = signatureRuns(t.sigs[0]), signatureRuns(t.sigs[1])
	sw.Statement = sw.statement(algo)
	return sw
}

func signatureRuns(m map[string]int) []SignatureRuns {
	var out []SignatureRuns
	for s, n := range m {
		out = append(out, SignatureRuns{Signature: s, Runs: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Runs != out[j].Runs {
			return out[i].Runs > out[j].Runs
		}
		return out[i].Signature < out[j].Signature
	})
	return out
}

// statement is the sweep's sentence, e.g. "fenced: no violation under any
// single pause-client or delay fault at any of its 8 points (300
// schedules; 2 clients, 1 node, ttl 500ms)": the kinds are named when
// --kinds narrowed them.
func (sw *Sweep) statement(algo string) string {
	s, world := sw.Singles, sw.World
	single, only := "single fault", ""
	if n := len(sw.Kinds); sw.Narrowed && n > 0 {
		single = "single " + sw.Kinds[0] + " fault"
		if n > 1 {
			single = "single " + strings.Join(sw.Kinds[:n-1], ", ") + " or " + sw.Kinds[n-1] + " fault"
		}
		only = " (" + strings.Join(sw.Kinds, ", ") + " only)"
	}
	var out string
	switch {
	case int64(s.Ran) < s.Exist:
		out = fmt.Sprintf("%s: %s of %s single-fault schedules%s ran (the budget or an interruption ended the sweep), so no bound is stated; %s of them broke it",
			algo, thousands(int64(s.Ran)), thousands(s.Exist), only, thousands(int64(s.Violating)))
	case s.Violating == 0:
		out = fmt.Sprintf("%s: no violation under any %s at any of its %d points (%s schedules; %s)",
			algo, single, sw.Points, thousands(s.Exist), world)
	default:
		var cs []string
		for _, c := range s.Signatures {
			cs = append(cs, fmt.Sprintf("%s in %s", c.Signature, thousands(int64(c.Runs))))
		}
		out = fmt.Sprintf("%s: %s of its %s single-fault schedules%s at its %d points break it (%s): %s",
			algo, thousands(int64(s.Violating)), thousands(s.Exist), only, sw.Points, world, strings.Join(cs, "; "))
	}
	if s.NotPlayed > 0 {
		out += fmt.Sprintf("; %s tested nothing (no lease granted)", thousands(int64(s.NotPlayed)))
	}
	switch p := sw.Pairs; {
	case p.Ran > 0 && int64(p.Ran) >= p.Exist && p.Violating == 0 && s.Violating == 0 && int64(s.Ran) >= s.Exist:
		out += fmt.Sprintf("; nor under any pair of them (%s)", thousands(p.Exist))
	case p.Ran > 0:
		out += fmt.Sprintf("; pairs: %s of %s ran, %s broke it", thousands(int64(p.Ran)), thousands(p.Exist), thousands(int64(p.Violating)))
	}
	return out
}

// merge adds o's runs to sw (shards of one sweep: the same schedules,
// split), recomputing the statement.
func (sw *Sweep) merge(o *Sweep, algo string) *Sweep {
	if o == nil {
		return sw
	}
	if sw == nil {
		c := *o
		return &c
	}
	for i, t := range []*Tier{&sw.Singles, &sw.Pairs} {
		u := []Tier{o.Singles, o.Pairs}[i]
		t.Ran += u.Ran
		t.NotPlayed += u.NotPlayed
		t.Violating += u.Violating
		m := map[string]int{}
		for _, c := range append(t.Signatures, u.Signatures...) {
			m[c.Signature] += c.Runs
		}
		t.Signatures = signatureRuns(m)
	}
	sw.Elapsed += o.Elapsed
	sw.Statement = sw.statement(algo)
	return sw
}

// markdown is summary.md's section on the sweep.
func (sw *Sweep) markdown() string {
	if sw == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Bounded sweep\n\n")
	fmt.Fprintf(&b, "**%s.**\n\n", sw.Statement)
	fmt.Fprintf(&b, "The sweep took %.1f s of wall time (merged shards: the sum), before any shrinking.\n\n", sw.Elapsed)
	fmt.Fprintf(&b, "Every single fault: %d kinds, each target, each of the %d points by each client at visits 1 to %d and two times, sizes and lengths below and above the TTL (and around the drift margin for clocks); schedules the same up to renaming clients (and the nodes of a multi-node design) run once.\n\n",
		len(sw.Kinds), sw.Points, maxVisit)
	b.WriteString("| tier | schedules (distinct up to renaming) | with renamings | ran | not played | violating runs |\n|---|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		t    Tier
	}{{"singles", sw.Singles}, {"pairs", sw.Pairs}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.name, thousands(r.t.Exist), thousands(r.t.Unreduced),
			thousands(int64(r.t.Ran)), thousands(int64(r.t.NotPlayed)), thousands(int64(r.t.Violating)))
	}
	for _, r := range []struct {
		name string
		t    Tier
	}{{"singles", sw.Singles}, {"pairs", sw.Pairs}} {
		if len(r.t.Signatures) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nViolating %s by signature:\n\n", r.name)
		for _, c := range r.t.Signatures {
			fmt.Fprintf(&b, "- `%s`: %s runs\n", c.Signature, thousands(int64(c.Runs)))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// check refuses counts no sweep writes: a negative count, or more
// schedules run than the tier holds.
func (sw *Sweep) check() error {
	if sw == nil {
		return nil
	}
	for _, t := range []struct {
		name string
		t    Tier
	}{{"singles", sw.Singles}, {"pairs", sw.Pairs}} {
		switch {
		case t.t.Exist < 0 || t.t.Unreduced < t.t.Exist || t.t.Ran < 0 || t.t.NotPlayed < 0 || t.t.Violating < 0:
			return fmt.Errorf("sweep.%s: negative counts, or fewer schedules with renamings than without", t.name)
		case int64(t.t.Ran) > t.t.Exist:
			return fmt.Errorf("sweep.%s.ran %d: more than the %d schedules it holds", t.name, t.t.Ran, t.t.Exist)
		case t.t.NotPlayed > t.t.Ran || t.t.Violating > t.t.Ran:
			return fmt.Errorf("sweep.%s: more runs not played or violating than ran (%d)", t.name, t.t.Ran)
		}
	}
	return nil
}
