package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/internal/regfile"
	"github.com/locksim/locksim/sim"
)

// Error is one problem with a scenario, in one line:
//
//	file.yaml:LINE: field: problem (value)
//
// Field is a path such as faults[1].when.point. Callers tell bad input from
// other failures with errors.As.
type Error struct {
	File  string
	Line  int    // 0 when not known (a scenario built in Go, an --algos override)
	Field string // "" for the file as a whole
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// IsBadInput reports whether err is the user's input, not locksim's failure.
func IsBadInput(err error) bool {
	var se *Error
	return errors.As(err, &se) || errors.Is(err, sim.ErrConfig)
}

// maxFileSize bounds LoadFile: scenario files are a few kilobytes.
const maxFileSize = 1 << 20

// LoadFile reads and parses one scenario file. A path that is not a
// regular file (a FIFO, a device, a directory) is refused before it is
// read: a FIFO without a writer would block the read for good.
func LoadFile(path string) (*Scenario, error) {
	f, _, err := regfile.Open(path)
	var nr *regfile.NotRegularError
	if errors.As(err, &nr) {
		return nil, &Error{File: path, Msg: nr.What() + ", not a regular file: not a scenario file"}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes: not a scenario file", maxFileSize)}
	}
	return Parse(path, data)
}

// Parse reads one scenario from data; filename is only used in errors. The
// first problem found is returned as an *Error. Parse never panics.
//
// It reads the YAML twice: into a yaml.Node, whose positions name the line
// of every problem (also those found after decoding, such as an index out of
// range), and into the Scenario with a strict decoder.
func Parse(filename string, data []byte) (*Scenario, error) {
	p := &parser{file: filename, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	root, err := p.document(data)
	if err != nil {
		return nil, err
	}
	if err := p.noAliases(root); err != nil {
		return nil, err
	}
	if err := p.shape(root, reflect.TypeFor[Scenario](), ""); err != nil {
		return nil, err
	}
	// Only now: shape has bounded the depth by the schema's.
	p.index(root, nil, "")
	var s Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := guard(func() error { return dec.Decode(&s) }); err != nil {
		// shape has checked what the decoder checks; this is a safety net.
		return nil, p.yamlError(err)
	}
	s.file, s.lines, s.written = filename, p.lines(), s.Backend
	// A file that names no backend is checked for the one its settings
	// need: persistence or Sentinel, which only redis-server has, are for
	// a run with --backend redis, which Config checks once the command
	// line is applied.
	checked := s
	if checked.Backend == "" && s.redisOnly() {
		checked.Backend = string(sim.BackendRedis)
	}
	if err := checked.check(); err != nil {
		return nil, err
	}
	// Resolving for every design it runs finds what only the built faults
	// can check (a partition whose groups choose no link), with its line.
	// What a design cannot take (checkDesign: a watchdog it lacks, a
	// majority it can never reach) is said when that design is resolved
	// for a run (RunConfig, before anything starts), once the command line
	// is known: --algos may name a design that takes the file, and on
	// --addrs what the backend cannot do is said first.
	var first error
	for _, algo := range checked.Algorithms() {
		if checked.checkDesign(algo) != nil {
			continue
		}
		_, err := checked.Config(algo)
		if err == nil {
			return &s, nil
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return &s, nil
}

// parser holds the positions of one file's nodes by field path.
type parser struct {
	file string
	vals map[string]*yaml.Node // path -> value node
	keys map[string]*yaml.Node // path -> key node (mapping entries only)
}

// document reads exactly one YAML document whose root is a mapping.
func (p *parser) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := guard(func() error { return dec.Decode(&doc) })
	if errors.Is(err, io.EOF) {
		return nil, &Error{File: p.file, Msg: "empty: want a mapping of scenario fields (name, algorithm, ...)"}
	}
	if err != nil {
		return nil, p.yamlError(err)
	}
	var next yaml.Node
	switch err := guard(func() error { return dec.Decode(&next) }); {
	case err == nil:
		return nil, &Error{File: p.file, Line: next.Line, Msg: "a second YAML document: a file holds one scenario"}
	case !errors.Is(err, io.EOF):
		return nil, p.yamlError(err)
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: p.file, Line: root.Line, Msg: "want a mapping of scenario fields (name, algorithm, ...)"}
	}
	return root, nil
}

// noAliases refuses anchors' aliases and merge keys: a scenario is short
// enough to write out, and an alias makes "the line of the field" ambiguous.
func (p *parser) noAliases(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode {
		return &Error{File: p.file, Line: n.Line, Msg: fmt.Sprintf("aliases are not supported; write the value out (*%s)", shown(n.Value))}
	}
	for _, c := range n.Content {
		if err := p.noAliases(c); err != nil {
			return err
		}
	}
	return nil
}

// index records every node under its field path: options.ttl, faults[0],
// faults[0].when.point, expect.redlock.claim.
func (p *parser) index(n, key *yaml.Node, path string) {
	if _, seen := p.vals[path]; !seen { // the first of duplicate keys; shape refuses the second
		p.vals[path] = n
		if key != nil {
			p.keys[path] = key
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode {
				p.index(n.Content[i+1], k, field(path, k.Value))
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p.index(c, nil, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// lines maps each path to the line an error about it names: a scalar's own
// line, a block's key line.
func (p *parser) lines() map[string]int {
	out := make(map[string]int, len(p.vals))
	for path, v := range p.vals {
		out[path] = v.Line
		if k := p.keys[path]; k != nil && v.Kind != yaml.ScalarNode {
			out[path] = k.Line
		}
	}
	return out
}

// shape checks n against t, the type it decodes into, so that a mismatch is
// reported with its field path and line instead of the decoder's Go type
// names: unknown or repeated fields, a list where a value belongs, a
// number that is not one.
func (p *parser) shape(n *yaml.Node, t reflect.Type, path string) error {
	if u, ok := reflect.New(t).Interface().(yaml.Unmarshaler); ok {
		if err := u.UnmarshalYAML(n); err != nil {
			return p.problem(err, path)
		}
		return nil
	}
	null := n.Kind == yaml.ScalarNode && n.Tag == "!!null"
	switch t.Kind() {
	case reflect.Pointer:
		return p.shape(n, t.Elem(), path)
	case reflect.Struct:
		if null {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return p.at(n, path, "want a mapping of fields (%s)", strings.Join(yamlNames(t), ", "))
		}
		fields := yamlFields(t)
		return p.entries(n, path, func(k, v *yaml.Node, sub string) error {
			ft, ok := fields[k.Value]
			if !ok {
				return p.at(k, sub, "unknown field (known: %s)", strings.Join(yamlNames(t), ", "))
			}
			return p.shape(v, ft, sub)
		})
	case reflect.Map:
		if null {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return p.at(n, path, "want a mapping")
		}
		return p.entries(n, path, func(_, v *yaml.Node, sub string) error {
			return p.shape(v, t.Elem(), sub)
		})
	case reflect.Slice:
		if null {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return p.at(n, path, "want a list")
		}
		for i, c := range n.Content {
			if err := p.shape(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return p.at(n, path, "want a single value, not a %s", kindName(n.Kind))
	}
	if null {
		return p.at(n, path, "no value")
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		want := map[reflect.Kind]string{
			reflect.Int: "an integer", reflect.Uint64: "a non-negative integer",
			reflect.Float64: "a number", reflect.Bool: "true or false",
		}[t.Kind()]
		if want == "" {
			want = "a " + t.Kind().String()
		}
		return p.at(n, path, "want %s (%s)", want, shown(n.Value))
	}
	return nil
}

// entries walks a mapping's pairs, refusing non-scalar and repeated keys.
func (p *parser) entries(n *yaml.Node, path string, each func(k, v *yaml.Node, sub string) error) error {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.at(k, path, "want a field name, not a %s", kindName(k.Kind))
		}
		sub := field(path, k.Value)
		if line, dup := first[k.Value]; dup {
			return p.at(k, sub, "given twice (first on line %d)", line)
		}
		first[k.Value] = k.Line
		if err := each(k, v, sub); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) at(n *yaml.Node, path, format string, args ...any) *Error {
	return &Error{File: p.file, Line: n.Line, Field: path, Msg: fmt.Sprintf(format, args...)}
}

// problem turns a custom type's complaint into an Error at its field.
func (p *parser) problem(err error, path string) error {
	var pr *problem
	if errors.As(err, &pr) {
		return &Error{File: p.file, Line: pr.node.Line, Field: path + pr.sub, Msg: pr.msg}
	}
	return &Error{File: p.file, Field: path, Msg: err.Error()}
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?(?:unmarshal errors:\s*)?line (\d+): (.*)$`)

// yamlError turns the YAML library's error into one line of ours.
func (p *parser) yamlError(err error) error {
	var pr *problem
	if errors.As(err, &pr) {
		return &Error{File: p.file, Line: pr.node.Line, Msg: pr.msg}
	}
	msg := strings.TrimSpace(err.Error())
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg, _, _ = strings.Cut(msg, "\n")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: p.file, Line: line, Msg: m[2]}
	}
	return &Error{File: p.file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// guard turns a panic inside the YAML library into an error: Parse must not
// panic on any input, whatever the library does.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the YAML reader failed on this input: %v", r)
		}
	}()
	return f()
}

func field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// yamlFields maps a struct's yaml names to field types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			if name := yamlName(f); name != "" {
				out[name] = f.Type
			}
		}
	}
	return out
}

// yamlNames lists a struct's yaml names in declaration order.
func yamlNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			if name := yamlName(f); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "value"
	}
	return "node"
}

// redisOnly reports whether the file asks for what only redis-server
// offers: persistence, or a failover by Sentinel.
func (s *Scenario) redisOnly() bool {
	switch sim.Persistence(s.Persistence) {
	case sim.PersistenceEverySec, sim.PersistenceAlways:
		return true
	}
	return s.Failover != nil && sim.FailoverMode(s.Failover.Mode) == sim.FailoverSentinel
}
