package adapter_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

var update = flag.Bool("update", false, "rewrite docs/process-designs.md's process matrix from the catalogue")

const (
	processPage  = "../docs/process-designs.md"
	matrixBegin  = "<!-- process-matrix:begin -->"
	matrixEnd    = "<!-- process-matrix:end -->"
	matrixIntro  = "| scenario | redis-py | node-redlock | setpx | redlock |"
	processNotes = "\nSkips:\n"
)

// processDesigns are the process matrix's columns: each bundled
// process design beside the design it behaves like.
var processDesigns = []string{"redis-py", "node-redlock", "setpx", "redlock"}

// TestProcessMatrixPage keeps docs/process-designs.md's process matrix
// what the catalogue expects of redis-py and node-redlock (and of setpx
// and redlock beside them), skips with their reasons; `go test ./adapter
// -run ProcessMatrixPage -update` rewrites it. Whether the runs agree is
// the catalogue's and the matrix's business; docs/results.md says how
// often they did.
func TestProcessMatrixPage(t *testing.T) {
	for _, algo := range processDesigns {
		requireDesign(t, algo)
		info, _ := lock.Lookup(algo)
		if m := info.ClockUnreached(); m != "" {
			if os.Getenv(simtest.RequireEnv) == "1" {
				t.Fatal(m)
			}
			t.Skip("skipping: " + m + " (the page's matrix is the one of a machine with libfaketime)")
		}
	}
	want := processMatrix()
	b, err := os.ReadFile(processPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	begin, end := strings.Index(text, matrixBegin), strings.Index(text, matrixEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no %s ... %s", processPage, matrixBegin, matrixEnd)
	}
	got := text[begin+len(matrixBegin) : end]
	if got == want {
		return
	}
	if *update {
		out := text[:begin+len(matrixBegin)] + want + text[end:]
		tmp := processPage + ".tmp"
		if err := os.WriteFile(tmp, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, processPage); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's process matrix is not the catalogue's; run go test ./adapter -run ProcessMatrixPage -update\n--- page\n%s\n--- catalogue\n%s", processPage, got, want)
}

// processMatrix is the table: a row per built-in scenario, a cell per
// design: the verdict expected (bold when not safe), skip [n] with its
// reason in the notes below, – where the scenario does not apply, ° where
// it asserts nothing.
func processMatrix() string {
	var b strings.Builder
	b.WriteString("\n" + matrixIntro + "\n|---|---|---|---|---|\n")
	var reasons []string
	note := func(r string) int {
		for i, x := range reasons {
			if x == r {
				return i + 1
			}
		}
		reasons = append(reasons, r)
		return len(reasons)
	}
	for _, s := range scenarios.Builtin() {
		fmt.Fprintf(&b, "| `%s` |", s.Name)
		for _, algo := range processDesigns {
			e, ok := s.Expect(algo)
			var cell string
			switch {
			case !s.Covers(algo):
				cell = "–"
			case !ok || e.Verdict == vocab.Any:
				cell = "°"
			case e.Verdict == vocab.Skip:
				cell = fmt.Sprintf("skip [%d]", note(e.Reason))
			case e.Verdict == vocab.Safe:
				cell = "safe"
			default:
				cell = "**" + string(e.Verdict) + "**"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	if len(reasons) > 0 {
		b.WriteString(processNotes + "\n")
		for i, r := range reasons {
			fmt.Fprintf(&b, "%d. %s\n", i+1, r)
		}
	}
	return b.String()
}
