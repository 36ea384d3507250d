package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Partial says how the run falls short of a full sweep (lockbench with no
// flags: every design and raw, clients 1,4,16,64, nodes 1,3,5, both
// contention modes, 3 s in 6 rounds, on redis-server), one reason a line;
// nil for a full run. A run under a scenario (--under), a --quick run and
// any narrowed sweep are partial. Longer or wider runs are still full.
// It reads only bench.json's settings, so it judges runs of any lockbench
// that wrote them; a design added since an older full run makes that run
// partial, as it is: the design is missing from it.
func (r *Report) Partial() []string {
	var out []string
	if r.Incomplete != "" {
		out = append(out, "incomplete: "+r.Incomplete)
	}
	if r.Under != nil {
		out = append(out, fmt.Sprintf("it measured latency under scenario %q, not the sweep", r.Under.Scenario))
	}
	if !RealServer(r.Backend) {
		out = append(out, fmt.Sprintf("backend %s, not redis-server", orUnknown(r.Backend)))
	}
	s := r.Settings
	if r.Under == nil {
		if missing := without(DefaultAlgorithms(), s.Algorithms); len(missing) > 0 {
			out = append(out, fmt.Sprintf("%d of the %d designs were not measured (%s)", len(missing), len(DefaultAlgorithms()), strings.Join(missing, ", ")))
		}
		if missing := without(DefaultClients, s.Clients); len(missing) > 0 {
			out = append(out, fmt.Sprintf("clients %s, not %s", ints(s.Clients), ints(DefaultClients)))
		}
		if missing := without(DefaultNodes, s.Nodes); len(missing) > 0 {
			out = append(out, fmt.Sprintf("nodes %s, not %s", ints(s.Nodes), ints(DefaultNodes)))
		}
		if missing := without(Contentions(), s.Contention); len(missing) > 0 && len(s.Contention) > 0 {
			out = append(out, fmt.Sprintf("contention %s only", strings.Join(strs(s.Contention), ",")))
		} else if len(missing) > 0 {
			out = append(out, "no contention mode recorded")
		}
		if d := time.Duration(s.DurationS * float64(time.Second)); d < DefaultDuration || s.Rounds < DefaultRounds {
			out = append(out, fmt.Sprintf("%v per configuration in %d round(s), not %v in %d", d, s.Rounds, DefaultDuration, DefaultRounds))
		}
	}
	return out
}

// without lists the elements of want that have is lacks.
func without[T comparable](want, have []T) []T {
	var out []T
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

func ints(v []int) string {
	var s []string
	for _, n := range v {
		s = append(s, fmt.Sprint(n))
	}
	return orUnknown(strings.Join(s, ","))
}

func strs[T ~string](v []T) []string {
	var s []string
	for _, x := range v {
		s = append(s, string(x))
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}
