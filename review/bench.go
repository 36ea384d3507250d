package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Bench is a lockbench run as the page shows it: its summary.md (how it
// was measured, the tables) and its charts.
type Bench struct {
	Dir     string
	Summary string // summary.md
	// Charts are the run's PNG files by name; Order lists them in the
	// order summary.md refers to them, then the rest by name.
	Charts map[string][]byte
	Order  []string
}

// lockbench's files (bench package); read by name so that the page does
// not depend on the bench code.
const (
	benchSummary = "summary.md"
	benchJSON    = "bench.json"
)

// LoadBench reads a lockbench run directory.
func LoadBench(dir string) (*Bench, error) {
	sum, err := os.ReadFile(filepath.Join(dir, benchSummary))
	if err != nil {
		return nil, fmt.Errorf("%s does not look like a lockbench run: %w", dir, err)
	}
	b := &Bench{Dir: dir, Summary: string(sum), Charts: map[string][]byte{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".png") {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			b.Charts[e.Name()] = data
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, m := range imageRE.FindAllStringSubmatch(b.Summary, -1) {
		if _, ok := b.Charts[m[1]]; ok && !slices.Contains(b.Order, m[1]) {
			b.Order = append(b.Order, m[1])
		}
	}
	for _, n := range names {
		if !slices.Contains(b.Order, n) {
			b.Order = append(b.Order, n)
		}
	}
	return b, nil
}

var imageRE = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)`)

// Unreferenced are the charts summary.md does not show itself.
func (b *Bench) Unreferenced() []string {
	var out []string
	for _, n := range b.Order {
		if !strings.Contains(b.Summary, "]("+n+")") {
			out = append(out, n)
		}
	}
	return out
}

// LatestBench finds the newest lockbench run under root (results/lockbench):
// root/latest when it is a run, else the last directory by its UTC stamp
// name that holds summary.md and bench.json. It returns "" when there is
// none.
func LatestBench(root string) (string, error) {
	if isBenchRun(filepath.Join(root, "latest")) {
		return filepath.Join(root, "latest"), nil
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var best string
	for _, e := range entries {
		// Stamps start with the year; a hidden name is a run still being
		// written.
		name := e.Name()
		if name[0] < '0' || name[0] > '9' || !isBenchRun(filepath.Join(root, name)) {
			continue
		}
		if name > best {
			best = name
		}
	}
	if best == "" {
		return "", nil
	}
	return filepath.Join(root, best), nil
}

func isBenchRun(dir string) bool {
	for _, f := range []string{benchSummary, benchJSON} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
