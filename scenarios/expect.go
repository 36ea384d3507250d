package scenarios

import (
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

var (
	overallVerdicts = []vocab.Verdict{vocab.Safe, vocab.Unsafe, vocab.Deadlock, vocab.Any, vocab.Skip, vocab.Unknown}
	checkVerdicts   = []vocab.Verdict{vocab.Safe, vocab.Unsafe, vocab.Unknown, vocab.Skipped, vocab.Deadlock, vocab.Covered}
)

// Expectation is what a scenario expects of one design. In a file it is a
// verdict ("unsafe") or a mapping that can also name check verdicts and a
// reason: {verdict: unsafe, exclusion: unsafe, claim: safe} or
// {verdict: skip, reason: "no replicas to fail over to"}.
type Expectation struct {
	Verdict vocab.Verdict // safe, unsafe, deadlock, any or skip; any when only checks are given
	// Checks are expected verdicts of single checks (exclusion, claim,
	// fencing, liveness), each safe, unsafe, unknown, skipped or deadlock;
	// nil when none are asserted.
	Checks map[string]vocab.Verdict
	Reason string // why; required for skip
}

// Asserted reports whether a run's overall verdict is compared with this
// expectation (any and skip are not).
func (e Expectation) Asserted() bool { return e.Verdict != vocab.Any && e.Verdict != vocab.Skip }

// UnmarshalYAML reads a verdict or a mapping.
func (e *Expectation) UnmarshalYAML(n *yaml.Node) error {
	out, err := parseExpectation(n)
	if err != nil {
		return err
	}
	*e = out
	return nil
}

func parseExpectation(n *yaml.Node) (Expectation, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		v := vocab.Verdict(n.Value)
		if !slices.Contains(overallVerdicts, v) {
			return Expectation{}, problemf(n, "", "unknown verdict (%s); want one of %s", shown(n.Value), join(overallVerdicts))
		}
		e := Expectation{Verdict: v}
		if v == vocab.Skip {
			return Expectation{}, problemf(n, "", "skip needs a reason: write {verdict: skip, reason: \"...\"}")
		}
		return e, nil
	case yaml.MappingNode:
		return parseExpectationMap(n)
	}
	return Expectation{}, problemf(n, "", "want a verdict (%s) or a mapping {verdict: ..., <check>: ...}", join(overallVerdicts))
}

func parseExpectationMap(n *yaml.Node) (Expectation, error) {
	e := Expectation{Verdict: vocab.Any}
	seen := map[string]bool{}
	var verdictNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return e, problemf(k, "", "want a field name")
		}
		if seen[k.Value] {
			return e, problemf(k, "."+k.Value, "given twice")
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return e, problemf(v, "."+k.Value, "want a single value")
		}
		switch {
		case k.Value == "verdict":
			e.Verdict, verdictNode = vocab.Verdict(v.Value), v
			if !slices.Contains(overallVerdicts, e.Verdict) {
				return e, problemf(v, ".verdict", "unknown verdict (%s); want one of %s", shown(v.Value), join(overallVerdicts))
			}
		case k.Value == "reason":
			e.Reason = strings.TrimSpace(v.Value)
		case slices.Contains(vocab.Checks(), k.Value):
			cv := vocab.Verdict(v.Value)
			if !slices.Contains(checkVerdicts, cv) {
				return e, problemf(v, "."+k.Value, "unknown check verdict (%s); want one of %s", shown(v.Value), join(checkVerdicts))
			}
			if (cv == vocab.Deadlock && k.Value != vocab.CheckLiveness) || (cv == vocab.Unsafe && k.Value == vocab.CheckLiveness) {
				return e, problemf(v, "."+k.Value, "a %s check cannot be %s (only liveness ends in deadlock, and it is never unsafe)", k.Value, cv)
			}
			if cv == vocab.Covered && k.Value != vocab.CheckClaim {
				return e, problemf(v, "."+k.Value, "only the claim can be covered (by fencing) (%s: %s)", k.Value, cv)
			}
			if e.Checks == nil {
				e.Checks = map[string]vocab.Verdict{}
			}
			e.Checks[k.Value] = cv
		default:
			return e, problemf(k, "."+k.Value, "unknown field (known: verdict, reason, %s)", strings.Join(vocab.Checks(), ", "))
		}
	}
	if verdictNode == nil {
		verdictNode = n
	}
	return e, e.consistent(verdictNode)
}

// consistent refuses expectations that no run could meet.
func (e Expectation) consistent(n *yaml.Node) error {
	switch e.Verdict {
	case vocab.Skip:
		if e.Reason == "" {
			return problemf(n, "", "skip needs a reason: write {verdict: skip, reason: \"...\"}")
		}
		if len(e.Checks) > 0 {
			return problemf(n, "", "a skipped design has no check verdicts")
		}
	case vocab.Safe:
		for _, c := range vocab.Checks() {
			if v, ok := e.Checks[c]; ok && v != vocab.Safe && v != vocab.Skipped && v != vocab.Covered {
				return problemf(n, "", "overall safe contradicts %s: %s", c, v)
			}
		}
	case vocab.Deadlock:
		for _, c := range vocab.Checks() {
			v, ok := e.Checks[c]
			if ok && c != vocab.CheckLiveness && v != vocab.Safe && v != vocab.Skipped && v != vocab.Covered {
				return problemf(n, "", "overall deadlock needs every safety check safe (%s: %s)", c, v)
			}
			if ok && c == vocab.CheckLiveness && v != vocab.Deadlock {
				return problemf(n, "", "overall deadlock contradicts liveness: %s", v)
			}
		}
	case vocab.Unsafe:
		all := true
		for _, c := range []string{vocab.CheckExclusion, vocab.CheckClaim, vocab.CheckFencing} {
			v, ok := e.Checks[c]
			if ok && v == vocab.Unsafe {
				return nil
			}
			all = all && ok
		}
		if all {
			return problemf(n, "", "overall unsafe needs a safety check that is unsafe")
		}
	}
	return nil
}

// MarshalYAML writes a bare verdict when that says everything.
func (e Expectation) MarshalYAML() (any, error) {
	if len(e.Checks) == 0 && e.Reason == "" {
		return string(e.Verdict), nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add := func(k, v string) {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: k},
			&yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	add("verdict", string(e.Verdict))
	for _, c := range vocab.Checks() {
		if v, ok := e.Checks[c]; ok {
			add(c, string(v))
		}
	}
	if e.Reason != "" {
		add("reason", e.Reason)
		m.Style = 0 // a long reason reads better in block style
	}
	return m, nil
}

// MissedVerdict is what Misses names when the overall verdict did not
// meet the expectation; a check that did not is named by itself.
const MissedVerdict = "verdict"

// Misses compares a run's result with the expectation, as typed values: it
// is the one place locksim decides whether a run went as expected (run,
// matrix, check, the review page and each run's report all take its
// answer). It returns what did not match, MissedVerdict first and then each
// expected check by name in CheckNames order, and nothing when the result
// meets e.
//
// The zero Expectation is "nothing expected": only safe passes. Any passes
// safe, unsafe and deadlock but not unknown: any says the design may come
// out either way, unknown says the checker could not decide, and unknown is
// never a pass. The expected checks are compared in every case, and an
// expected check missing from checks is a miss: a check that did not run
// did not give the expected verdict. Whether the run was complete and
// played its scenario is the caller's to add (an incomplete or unplayed
// run is never as expected).
func (e Expectation) Misses(verdict vocab.Verdict, checks map[string]vocab.Verdict) []string {
	var out []string
	switch e.Verdict {
	case "":
		if verdict != vocab.Safe {
			out = append(out, MissedVerdict)
		}
	case vocab.Any:
		if verdict == vocab.Unknown {
			out = append(out, MissedVerdict)
		}
	default:
		if verdict != vocab.Verdict(e.Verdict) {
			out = append(out, MissedVerdict)
		}
	}
	var extra []string // a check locksim does not have: always a miss
	for name := range e.Checks {
		if !slices.Contains(vocab.Checks(), name) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	names := append(slices.Clone(vocab.Checks()), extra...)
	for _, name := range names {
		want, ok := e.Checks[name]
		if !ok || want == "" || want == vocab.Any {
			continue
		}
		if got, ran := checks[name]; !ran || got != vocab.Verdict(want) {
			out = append(out, name)
		}
	}
	return out
}

// Meets reports whether a result meets e: Misses finds nothing.
func (e Expectation) Meets(verdict vocab.Verdict, checks map[string]vocab.Verdict) bool {
	return len(e.Misses(verdict, checks)) == 0
}

// CheckVerdicts are a checker result's verdicts by check name, the form
// Misses compares.
func CheckVerdicts(r checker.Result) map[string]vocab.Verdict {
	out := make(map[string]vocab.Verdict, len(r.Checks))
	for _, c := range r.Checks {
		out[c.Name] = c.Verdict
	}
	return out
}

// Expectations maps an algorithm name, or "*" for every other design, to
// what the scenario expects of it.
type Expectations map[string]Expectation

// Others is the key of the expectation for designs not named.
const Others = "*"

// For returns the expectation of algo: its own, else that of the design
// algo should behave like (lock.Info.Like), else the "*" one.
func (x Expectations) For(algo string) (Expectation, bool) {
	if e, ok := x[algo]; ok {
		return e, true
	}
	if l := like(algo); l != "" {
		if e, ok := x[l]; ok {
			return e, true
		}
	}
	e, ok := x[Others]
	return e, ok
}

// MarshalYAML writes the designs in catalogue order, "*" last.
func (x Expectations) MarshalYAML() (any, error) {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	order := lock.Names()
	rank := func(k string) int {
		if k == Others {
			return len(order) + 1
		}
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range keys {
		v := &yaml.Node{}
		if err := v.Encode(x[k]); err != nil {
			return nil, err
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	return m, nil
}

func join(vs []vocab.Verdict) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// String is the expectation in one line: "unsafe (exclusion unsafe, claim
// safe)", or the bare verdict.
func (e Expectation) String() string {
	s := string(e.Verdict)
	var parts []string
	for _, c := range vocab.Checks() {
		if v, ok := e.Checks[c]; ok {
			parts = append(parts, c+" "+string(v))
		}
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
