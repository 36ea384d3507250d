package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// The tables of docs/scenarios.md that the code decides: the fault kinds
// and their fields (the faults registry), the points (Points), and the defaults of
// the options and the world (what Resolved writes for a scenario that sets
// nothing, i.e. sim.Defaults).
// TestScenarioReference fails when the page's copy differs from these.

// KindInfo describes one fault kind as a scenario file writes it.
type KindInfo struct {
	Kind     string   `json:"kind"`
	Required []string `json:"required"`
	Optional []string `json:"optional"`
	// External: the kind runs on the external backend (servers the user
	// runs, --addrs); the others need process control.
	External bool   `json:"external"`
	Note     string `json:"note,omitempty"`
}

// Kinds lists the fault kinds in schema order.
func Kinds() []KindInfo {
	var out []KindInfo
	for _, name := range designKinds {
		k, ok := faults.Lookup(name)
		if !ok {
			continue
		}
		out = append(out, KindInfo{Kind: string(name), Required: append([]string{}, k.Required...), Optional: append([]string{}, k.Optional...), External: onExternal(name, k), Note: k.Note})
	}
	return out
}

// onExternal validates a sample of the kind (its required fields filled
// in) against a run on two external nodes.
func onExternal(name vocab.Kind, k faults.Entry) bool {
	one, two := 0, 2.0
	d := Duration(time.Second)
	f := FaultSpec{Kind: name, Client: &one, Node: &one, By: &d, Rate: &two, Latency: &d, For: &d}
	fault, err := f.build(k)
	if err != nil {
		return false
	}
	_, err = sim.Config{Algorithm: "setpx", Clients: 2, Cluster: sim.ClusterConfig{Backend: sim.BackendExternal, Nodes: 2, Replicas: 1},
		Faults: []sim.Planned{{Fault: fault, For: time.Second}}}.Resolve()
	var fe *sim.FaultError
	return !errors.As(err, &fe)
}

// KindsTable is the fault kinds' table of docs/scenarios.md.
func KindsTable() string {
	var b strings.Builder
	b.WriteString("| kind | required | optional | external servers |\n|---|---|---|---|\n")
	for _, k := range Kinds() {
		ext := "no (needs process control)"
		if k.External {
			ext = "yes"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", k.Kind, k.Kind, fields(k.Required), fields(k.Optional), ext)
	}
	return b.String()
}

func fields(fs []string) string {
	if len(fs) == 0 {
		return "–"
	}
	var q []string
	for _, f := range fs {
		q = append(q, "`"+f+"`")
	}
	return strings.Join(q, ", ")
}

// PointsTable is the points' table of docs/scenarios.md: the client loop's
// in cycle order, then the designs' own.
func PointsTable() string {
	var b strings.Builder
	b.WriteString("| point | announced by |\n|---|---|\n")
	for _, p := range Points() {
		by := "each design that has this step"
		if slices.Contains(sim.LoopPoints, history.Point(p)) {
			by = "the client loop"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", p, by)
	}
	return b.String()
}

// DefaultsTable is the defaults' table of docs/scenarios.md: every field
// a scenario may leave out, with the value Resolved writes for it, for a
// single-node design (setpx) and a multi-node one (redlock) where they
// differ.
func DefaultsTable() (string, error) {
	single, err := resolvedDefaults("setpx")
	if err != nil {
		return "", err
	}
	multi, err := resolvedDefaults("redlock")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| field | default |\n|---|---|\n")
	for _, kv := range single {
		v := "`" + kv[1] + "`"
		if i := slices.IndexFunc(multi, func(m [2]string) bool { return m[0] == kv[0] }); i >= 0 && multi[i][1] != kv[1] {
			v = fmt.Sprintf("`%s` (single-node designs), `%s` (multi-node designs: %s)", kv[1], multi[i][1], strings.Join(multiNode(), ", "))
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", kv[0], v)
	}
	b.WriteString("| `options.retries` | none: retry until the run ends |\n")
	b.WriteString("| `roles` | none: every client `any` |\n")
	return b.String(), nil
}

// resolvedDefaults is what Resolved writes for a scenario that sets
// nothing, as (field, value) pairs in file order; options' fields are
// options.<name>.
func resolvedDefaults(algo string) ([][2]string, error) {
	s := &Scenario{Name: "defaults"}
	b, err := s.Resolved(algo)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out [][2]string
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch {
			case prefix == "" && slices.Contains([]string{"name", "doc", "source", "algorithm", "faults", "require", "expect"}, k):
			case v.Kind == yaml.MappingNode:
				walk(v, prefix+k+".")
			default:
				out = append(out, [2]string{prefix + k, v.Value})
			}
		}
	}
	walk(doc.Content[0], "")
	return out, nil
}

// multiNode names the designs that lock on every node (lock.Info.MultiNode).
func multiNode() []string {
	var out []string
	for _, n := range lock.Names() {
		if info, err := lock.Lookup(n); err == nil && info.MultiNode {
			out = append(out, n)
		}
	}
	return out
}
