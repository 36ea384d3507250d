package scenarios

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in Go syntax ("250ms", "2s"). A bare
// number is refused: "500" could mean seconds or milliseconds.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML parses a Go duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return problemf(n, "", "want a duration like 250ms or 2s")
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return problemf(n, "", "not a duration; write it with a unit, like 250ms or 2s (%s)", shown(n.Value))
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes d as time.Duration.String does, which parses back.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// AlgorithmList is the algorithm field: one name or a list of names.
type AlgorithmList []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (a *AlgorithmList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" || n.Value == "" {
			return problemf(n, "", "want an algorithm name or a list of them")
		}
		*a = AlgorithmList{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(AlgorithmList, 0, len(n.Content))
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" || c.Value == "" {
				return problemf(c, fmt.Sprintf("[%d]", i), "want an algorithm name")
			}
			out = append(out, c.Value)
		}
		*a = out
		return nil
	}
	return problemf(n, "", "want an algorithm name or a list of them")
}

// MarshalYAML writes one name as a scalar, several as a list.
func (a AlgorithmList) MarshalYAML() (any, error) {
	if len(a) == 1 {
		return a[0], nil
	}
	return []string(a), nil
}

// problem is a custom type's complaint about a node: the parser adds the
// file, the line and the field's path (sub extends the path, as "[2]" or
// ".claim").
type problem struct {
	node *yaml.Node
	sub  string
	msg  string
}

func (p *problem) Error() string {
	if p.sub != "" {
		return fmt.Sprintf("line %d: %s: %s", p.node.Line, p.sub, p.msg)
	}
	return fmt.Sprintf("line %d: %s", p.node.Line, p.msg)
}

func problemf(n *yaml.Node, sub, format string, args ...any) *problem {
	return &problem{node: n, sub: sub, msg: fmt.Sprintf(format, args...)}
}

// cut shortens a value for a message that quotes it with %q.
func cut(v string) string {
	const limit = 60
	if len(v) > limit {
		return v[:limit] + "..."
	}
	return v
}

// shown renders a value for a one-line message: as is when it is short and
// plain, quoted (so newlines cannot break the line) and cut otherwise.
func shown(v string) string {
	const limit = 60
	plain := v != ""
	for _, r := range v {
		if r < ' ' || r == 0x7f || r == '"' || r == '\\' {
			plain = false
			break
		}
	}
	if plain && len(v) <= limit {
		return v
	}
	if len(v) > limit {
		v = v[:limit] + "..."
	}
	return fmt.Sprintf("%q", v)
}
