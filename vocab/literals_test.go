package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// allowed are literals spelled like a vocabulary word that mean something
// else, by file and word.
var allowed = map[string][]string{
	"scenarios/check.go":         {"any"},      // a role's access: read, write or any
	"scenarios/family.go":        {"failover"}, // the failover family of scenarios
	"history/history.go":         {"unknown"},  // an operation's outcome
	"internal/matrix/matrix.go":  {"skip"},     // a matrix cell not run
	"internal/report/summary.go": {"fencing"},  // the fencing option of a run
}

// words are every word of the vocabulary.
func words() map[string]bool {
	w := map[string]bool{}
	for _, k := range Kinds() {
		w[string(k)] = true
	}
	for _, c := range Checks() {
		w[c] = true
	}
	for _, v := range []Verdict{Safe, Unsafe, Deadlock, Unknown, Covered, Skipped, Any, Skip} {
		w[string(v)] = true
	}
	for _, p := range append(LoopPoints(), DesignPoints()...) {
		w[string(p)] = true
	}
	return w
}

// TestNoVocabularyLiterals fails on a string literal of a vocabulary word
// in the non-test code of another package where code compares it, keys a
// map or names a field with it, passes it or lists it: such a literal is a
// second spelling of a word this package owns.
func TestNoVocabularyLiterals(t *testing.T) {
	w := words()
	root := ".."
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "vocab" || rel == "results" || rel == "docs" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, b := range literalsIn(t, path, w) {
			if contains(allowed[filepath.ToSlash(rel)], b.word) {
				continue
			}
			bad = append(bad, filepath.ToSlash(rel)+":"+strconv.Itoa(b.line)+": "+strconv.Quote(b.word))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a vocabulary word as a literal; use package vocab's constant", b)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type hit struct {
	line int
	word string
}

// literalsIn finds the vocabulary literals of one file in the positions
// TestNoVocabularyLiterals checks.
func literalsIn(t *testing.T, path string, w map[string]bool) []hit {
	fset := token.NewFileSet()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []hit
	check := func(e ast.Expr) {
		lit, ok := ast.Unparen(e).(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && w[s] {
			out = append(out, hit{fset.Position(lit.Pos()).Line, s})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X)
				check(n.Y)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				check(e)
			}
		case *ast.KeyValueExpr:
			check(n.Key)
			check(n.Value)
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				check(e)
			}
		case *ast.CallExpr:
			for _, e := range n.Args {
				check(e)
			}
		case *ast.AssignStmt:
			for _, e := range n.Rhs {
				check(e)
			}
		case *ast.ValueSpec:
			for _, e := range n.Values {
				check(e)
			}
		case *ast.ReturnStmt:
			for _, e := range n.Results {
				check(e)
			}
		}
		return true
	})
	return out
}
