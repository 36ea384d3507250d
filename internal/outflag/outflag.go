// Package outflag is the pair of flags every command that writes results
// shares, with one meaning everywhere:
//
//	--out ROOT     a results root (default results); the command makes its own
//	               stamped directory under it, ROOT/<command>/<stamp>...
//	--out-dir DIR  the exact directory instead; it must not exist or be empty
//
// run and matrix take --out alone: run writes a directory per design and
// matrix moves its latest link, so an exact directory means nothing to
// them. docs/reliability.md#where-results-go lists the layout.
package outflag

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/artifact"
	"github.com/locksim/locksim/internal/report"
)

// DefaultRoot is the results root when --out is not given.
const DefaultRoot = "results"

// Flags are --out and --out-dir as given.
type Flags struct {
	Root string // --out
	Dir  string // --out-dir
	fs   *pflag.FlagSet
}

// Register adds --out and --out-dir to fs; kind is the directory under the
// root that the command's results go to (explore, review, lockbench).
func (f *Flags) Register(fs *pflag.FlagSet, kind, stamped string) {
	f.fs = fs
	fs.StringVar(&f.Root, "out", DefaultRoot, fmt.Sprintf("results root; this command writes OUT/%s/%s", kind, stamped))
	fs.StringVar(&f.Dir, "out-dir", "", "write to exactly this directory instead of a stamped one under --out (must not exist or be empty)")
}

// Resolve checks the flags before any work starts and returns the
// directory the command writes: --out-dir as given, else the first free
// name of ROOT/kind/name (name, name-2, ...). Each error is one line
// naming the flag and the value.
func (f *Flags) Resolve(kind, name string) (string, error) {
	if f.fs != nil && f.fs.Changed("out") && f.fs.Changed("out-dir") {
		return "", errors.New("--out and --out-dir: give one (a results root, or the exact directory)")
	}
	if f.Dir != "" {
		if err := report.CheckOutDir(f.Dir); err != nil {
			return "", fmt.Errorf("--out-dir %q: %w", f.Dir, err)
		}
		return filepath.Clean(f.Dir), nil
	}
	root := f.Root
	if err := report.CheckOutRoot(root); err != nil {
		return "", fmt.Errorf("--out %q: %w", root, err)
	}
	if err := report.CheckOutRoot(filepath.Join(root, kind)); err != nil {
		return "", fmt.Errorf("--out %q: %s inside it, where %s results go: %w", root, kind, kind, err)
	}
	dir, err := artifact.FreeName(filepath.Join(root, kind, name))
	if err != nil {
		return "", fmt.Errorf("--out %q: %w", root, err)
	}
	return dir, nil
}
