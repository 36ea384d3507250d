package explore

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
)

// Cause is one shrunk cause and the violations (signatures) it explains:
// those shrunk to it and those it covers. Many signatures are one cause:
// the kinds active at a witness vary with whatever else a schedule threw
// in, the fault that breaks the lock does not.
type Cause struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	// Faults describes the shrunk scenario's faults (causeOf), e.g.
	// "pause-client at after-enter, for > ttl".
	Faults     string `json:"faults"`
	FaultCount int    `json:"fault_count"`
	// Violations are the numbers (1-based, into Report.Violations) of the
	// signatures it explains; Covered how many of them were covered by
	// it rather than shrunk to it; Hits their runs.
	Violations []int `json:"violations"`
	Covered    int   `json:"covered"`
	Hits       int   `json:"hits"`
	// Shown is the number of the violation whose scenario stands for the
	// cause: of those shrunk to it, the best reproduced, then the fewest
	// faults.
	Shown      int        `json:"shown"`
	Reproduced Reproduced `json:"reproduced"`
	Scenario   string     `json:"scenario,omitempty"`
	Replay     string     `json:"replay,omitempty"`
	// Known: the design's reference fails every one of its violations too
	// (Violation.Known), a weakness of the family rather than the design's.
	Known bool `json:"known,omitempty"`
}

// causeOf describes the faults of a shrunk scenario s as a cause: each
// fault's kind, its trigger (the loop point, or "at a time") and its
// length and size as classes of the lease ("< ttl", "> ttl"), the faults
// sorted, so that two shrunk scenarios that differ only in a client's
// index, a visit's count or a length within its class are one cause.
func causeOf(s *scenarios.Scenario, target Finding, cfg Config) string {
	ttl := cfg.TTL
	if s.Options.TTL != nil {
		ttl = s.Options.TTL.D()
	}
	var parts []string
	for _, f := range s.Faults {
		parts = append(parts, faultClass(f, ttl))
	}
	if len(parts) == 0 {
		return "no fault (retry jitter and the interleaving alone)"
	}
	sort.Strings(parts)
	return strings.Join(parts, " + ")
}

// faultClass is one fault as causeOf describes it.
func faultClass(f scenarios.FaultSpec, ttl time.Duration) string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	switch {
	case f.When != nil:
		fmt.Fprintf(&b, " at %s", f.When.Point)
	case f.At != nil:
		b.WriteString(" at a time")
	}
	class := func(d time.Duration) string {
		switch {
		case d.Abs() > ttl:
			return "> ttl"
		case d.Abs() == ttl:
			return "= ttl"
		}
		return "< ttl"
	}
	switch {
	case f.Until != nil:
		fmt.Fprintf(&b, ", until %s", f.Until.Point)
	case f.For != nil:
		fmt.Fprintf(&b, ", for %s", class(f.For.D()))
	case lasts(f.Kind) && f.RestartAfter == nil:
		b.WriteString(", to the end")
	}
	if f.By != nil {
		dir := "forward"
		if f.By.D() < 0 {
			dir = "back"
		}
		fmt.Fprintf(&b, ", %s %s", dir, class(f.By.D()))
	}
	if f.Offset != nil {
		fmt.Fprintf(&b, ", offset %s", class(f.Offset.D()))
	}
	if f.Latency != nil {
		fmt.Fprintf(&b, ", latency %s", class(f.Latency.D()))
	}
	if f.RestartAfter != nil {
		data := "empty"
		if deref(f.KeepData, false) {
			data = "with its data"
		}
		fmt.Fprintf(&b, ", restarted %s", data)
	}
	return b.String()
}

// causesOf groups vs by cause (check, verdict and Violation.Cause): the
// causes with the most signatures first, then the most runs.
func causesOf(vs []Violation) []Cause {
	out := []Cause{}
	index := map[string]int{}
	for i, v := range vs {
		if v.Cause == "" {
			continue
		}
		key := v.Check + "\x00" + v.Verdict + "\x00" + v.Cause
		c, ok := index[key]
		if !ok {
			c = len(out)
			index[key] = c
			out = append(out, Cause{Check: v.Check, Verdict: v.Verdict, Faults: v.Cause, Known: true})
		}
		cs := &out[c]
		cs.Known = cs.Known && v.Known
		cs.Violations = append(cs.Violations, i+1)
		cs.Hits += v.Hits
		if v.CoveredBy > 0 {
			cs.Covered++
			continue
		}
		if cs.Shown == 0 || better(v, vs[cs.Shown-1]) {
			cs.Shown = i + 1
			cs.FaultCount, cs.Reproduced, cs.Scenario, cs.Replay = v.FaultsAfter, v.Reproduced, v.Scenario, v.Replay
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if len(out[a].Violations) != len(out[b].Violations) {
			return len(out[a].Violations) > len(out[b].Violations)
		}
		return out[a].Hits > out[b].Hits
	})
	return out
}

// unshrunkCounts counts the violations without a cause by why they have
// none (Violation.Unshrunk).
func unshrunkCounts(vs []Violation) map[string]int {
	n := map[string]int{}
	for _, v := range vs {
		if v.Cause == "" {
			n[orDefault(v.Unshrunk, UnshrunkError)]++
		}
	}
	return n
}

// unshrunkWhy says an Unshrunk reason in a few words.
var unshrunkWhy = map[string]string{
	UnshrunkBudget:      "not shrunk (budget)",
	UnshrunkInterrupted: "not shrunk (interrupted)",
	UnshrunkMax:         "not shrunk (past --max-shrink)",
	UnshrunkNoShrink:    "not shrunk (--no-shrink)",
	UnshrunkRule:        "not shrunk: did not fail again as a scenario",
	UnshrunkError:       "not shrunk: its runs failed",
	UnshrunkKnown:       "not shrunk: the reference fails them too (a known weakness of the family; --strict shrinks them)",
}

// unshrunkOrder is the order the counts are printed in.
var unshrunkOrder = []string{UnshrunkKnown, UnshrunkBudget, UnshrunkInterrupted, UnshrunkMax, UnshrunkNoShrink, UnshrunkRule, UnshrunkError}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// replayOf is how to replay the scenario file path of design algo: with
// `locksim run` for a design built into locksim; else from a go test of
// the program that registers it, which alone knows the design.
func replayOf(algo, path string) string {
	if lock.Builtin(algo) {
		return "locksim run " + path
	}
	return fmt.Sprintf("explore.Replay(t, %q)", path)
}

// replayWhere says where Replay's command works, for a design that is not
// built into locksim: "" for one that is.
func replayWhere(algo string) string {
	if lock.Builtin(algo) {
		return ""
	}
	return fmt.Sprintf("in a go test of the program that registers %s (lock.Register; locksim run does not know it)", algo)
}
