package scenarios_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/run"
)

// goldenVerdicts records what every catalogue pair's run in virtual time
// decided: its verdict, each check's and what it did not play. A run in
// virtual time replays exactly, so the same code gives the same lines; a
// change to how locksim is put together that changes one is a change of
// behaviour. LOCKSIM_UPDATE_GOLDEN=1 with every pair run
// (LOCKSIM_CATALOGUE=full under -race) writes the file anew.
const goldenVerdicts = "testdata/catalogue-verdicts.golden"

// golden collects the lines of one catalogue run.
type golden struct {
	mu    sync.Mutex
	lines map[string]string // "scenario design" -> the rest
}

// add is a runPairs check recording o's line.
func (g *golden) add(t *testing.T, o run.Outcome) {
	names := make([]string, 0, len(o.Checks))
	for name := range o.Checks {
		names = append(names, name)
	}
	sort.Strings(names)
	var checks []string
	for _, name := range names {
		checks = append(checks, fmt.Sprintf("%s=%s", name, o.Checks[name]))
	}
	line := fmt.Sprintf("%s %s unplayed=%s", o.Verdict, strings.Join(checks, ","), strings.Join(o.Unplayed, ";"))
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lines == nil {
		g.lines = map[string]string{}
	}
	g.lines[o.Scenario+" "+o.Algorithm] = line
}

// compare wants every collected line in the golden file; with all pairs
// run and LOCKSIM_UPDATE_GOLDEN set, it writes the file instead.
func (g *golden) compare(t *testing.T, all bool) {
	t.Helper()
	if os.Getenv("LOCKSIM_UPDATE_GOLDEN") != "" {
		if !all {
			t.Fatalf("LOCKSIM_UPDATE_GOLDEN needs every pair run (%s=full under -race)", catalogueEnv)
		}
		keys := make([]string, 0, len(g.lines))
		for k := range g.lines {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s\n", k, g.lines[k])
		}
		if err := os.WriteFile(goldenVerdicts, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d pairs", goldenVerdicts, len(keys))
		return
	}
	b, err := os.ReadFile(goldenVerdicts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 {
			t.Fatalf("%s: malformed line %q", goldenVerdicts, l)
		}
		want[f[0]+" "+f[1]] = f[2]
	}
	for k, got := range g.lines {
		w, ok := want[k]
		switch {
		case !ok:
			t.Errorf("%s: not in %s (LOCKSIM_UPDATE_GOLDEN=1 adds it)", k, goldenVerdicts)
		case w != got:
			t.Errorf("%s: %s, the golden file says %s", k, got, w)
		}
	}
	if all && len(g.lines) != len(want) {
		t.Errorf("%d pairs ran, %s has %d", len(g.lines), goldenVerdicts, len(want))
	}
}
