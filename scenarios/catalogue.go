package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/locksim/locksim/internal/suggest"
)

// The built-in catalogue: one file per scenario, named NN-<name>.yaml after
// its place in the canonical catalogue order (a variant shares its
// original's number). Beside it, the corpus of bugs from the wild
// (wild/): each a failure reported against a published version of a lock
// library, expected at the version that had it and at the one that fixed
// it; its scenarios are found by name like the catalogue's but are not
// part of it, since they name pinned versions (lock.PinnedNames).
//
//go:embed catalogue/*.yaml wild/*.yaml
var catalogue embed.FS

type builtin struct {
	file string // path inside the embedded catalogue, for errors
	data []byte
	name string
}

// builtins reads the embedded files once, in catalogue order. A built-in
// that does not parse is a bug in locksim, caught by the package's tests;
// here it panics, as a broken regexp literal would.
var builtins = sync.OnceValue(func() []builtin {
	files, err := fs.Glob(catalogue, "catalogue/*.yaml")
	if err != nil {
		panic(err)
	}
	// "07-x" sorts before "07-x-variant" once the extension is off.
	sort.Slice(files, func(i, j int) bool {
		return strings.TrimSuffix(files[i], ".yaml") < strings.TrimSuffix(files[j], ".yaml")
	})
	var list []builtin
	for _, f := range files {
		data, err := catalogue.ReadFile(f)
		if err != nil {
			panic(err)
		}
		b := builtin{file: f, data: data}
		b.name = b.parse().Name
		list = append(list, b)
	}
	return list
})

// wild lists the corpus of bugs from the wild, in file name order, each
// named by its file (wild/<name>.yaml): it is parsed only when asked for,
// since its designs are pinned versions that only a program linking
// package adapter knows.
var wild = sync.OnceValue(func() []builtin {
	files, err := fs.Glob(catalogue, "wild/*.yaml")
	if err != nil {
		panic(err)
	}
	sort.Strings(files)
	var list []builtin
	for _, f := range files {
		data, err := catalogue.ReadFile(f)
		if err != nil {
			panic(err)
		}
		list = append(list, builtin{file: f, data: data, name: strings.TrimSuffix(path.Base(f), ".yaml")})
	}
	return list
})

func (b builtin) parse() *Scenario {
	s, err := Parse(b.file, b.data)
	if err != nil {
		panic(fmt.Sprintf("scenarios: built-in scenario is broken: %v", err))
	}
	return s
}

// Builtin returns the built-in scenarios in catalogue order. Each call
// returns fresh values, which the caller may change.
func Builtin() []*Scenario {
	var out []*Scenario
	for _, b := range builtins() {
		out = append(out, b.parse())
	}
	return out
}

// Wild returns the corpus of bugs from the wild, in file name order; an
// error when a program that does not link package adapter (which
// registers the pinned versions they name) reads them. Each call returns
// fresh values.
func Wild() ([]*Scenario, error) {
	var out []*Scenario
	for _, b := range wild() {
		s, err := Parse(b.file, b.data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Lookup finds a built-in scenario (the catalogue's or the wild corpus's) by name, else loads nameOrPath as a file.
// When it is neither, the one-line error lists the built-in names.
func Lookup(nameOrPath string) (*Scenario, error) {
	var names []string
	for _, b := range builtins() {
		if b.name == nameOrPath {
			return b.parse(), nil
		}
		names = append(names, b.name)
	}
	for _, b := range wild() {
		if b.name == nameOrPath {
			return Parse(b.file, b.data)
		}
		names = append(names, b.name)
	}
	s, err := LoadFile(nameOrPath)
	if errors.Is(err, fs.ErrNotExist) {
		if hint := suggest.Hint(nameOrPath, names); hint != "" {
			return nil, fmt.Errorf("scenario %q: neither a built-in nor a file%s", nameOrPath, hint)
		}
		return nil, fmt.Errorf("scenario %q: neither a built-in nor a file (see 'locksim list')", nameOrPath)
	}
	return s, err
}

// UserFile is the file the scenario was loaded from, "" for a built-in or
// a scenario built in Go.
func (s *Scenario) UserFile() string {
	if s.file == "" {
		return ""
	}
	for _, b := range slices.Concat(builtins(), wild()) {
		if b.file == s.file {
			return ""
		}
	}
	return s.file
}
