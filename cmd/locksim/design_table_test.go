package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// designPage is the map of the code a reader of the repository starts from.
const designPage = "../../docs/design.md"

// TestDesignTableListsEveryPackage holds docs/design.md's package table to
// the tree: one row for every package of the module (miniredis's own
// subpackages aside, which its row covers), none for a package that is
// gone, each cell one or two sentences.
func TestDesignTableListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile(designPage)
	require.NoError(t, err)
	page := string(b)
	start := strings.Index(page, "| package | what it is |")
	require.GreaterOrEqual(t, start, 0, "no package table in %s", designPage)
	row := regexp.MustCompile("^\\| `([a-z0-9/]+)` \\| (.*) \\|$")
	cells := map[string]string{}
	for _, line := range strings.Split(page[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := row.FindStringSubmatch(line)
		require.NotNil(t, m, "malformed row %q", line)
		cells[m[1]] = m[2]
	}
	var rows []string
	for name := range cells {
		rows = append(rows, name)
	}
	sort.Strings(rows)
	assert.Equal(t, modulePackages(t, "../.."), rows)
	sentence := regexp.MustCompile("[.!?] +[A-Z`\"(]")
	for name, cell := range cells {
		assert.LessOrEqual(t, len(sentence.FindAllString(cell, -1))+1, 2, "%s: %q is more than two sentences", name, cell)
	}
}

// modulePackages lists the directories under root holding a non-test Go
// file, as import paths relative to the module root; a directory with a
// go.mod of its own is another module.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "node_modules" ||
				base == "results" || strings.HasPrefix(rel, filepath.Join("internal", "miniredis")+string(filepath.Separator))) {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && rel != filepath.Base(rel) {
			seen[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		return nil
	})
	require.NoError(t, err)
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
