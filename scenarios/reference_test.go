package scenarios_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
)

var update = flag.Bool("update", false, "rewrite docs/scenarios.md's generated tables from the code")

const referencePage = "../docs/scenarios.md"

// TestScenarioReference keeps docs/scenarios.md honest: its tables of fault
// kinds (the faults registry), points (lock.Points and the client
// loop's) and defaults (sim.Config.Resolve, sim.Defaults)
// are what the code generates, every kind has a section, and the README's
// "Writing a scenario" links to the page. -update rewrites the tables.
func TestScenarioReference(t *testing.T) {
	b, err := os.ReadFile(referencePage)
	require.NoError(t, err)
	page := string(b)
	defaults, err := scenarios.DefaultsTable()
	require.NoError(t, err)
	tables := []struct{ name, want string }{
		{"defaults", defaults},
		{"kinds", scenarios.KindsTable()},
		{"points", scenarios.PointsTable()},
	}
	for _, tb := range tables {
		begin, end := "<!-- "+tb.name+":begin -->\n", "<!-- "+tb.name+":end -->"
		i, j := strings.Index(page, begin), strings.Index(page, end)
		require.True(t, i >= 0 && j > i, "%s has the %s table between %q and %q", referencePage, tb.name, begin, end)
		if *update {
			page = page[:i+len(begin)] + tb.want + page[j:]
			continue
		}
		assert.Equal(t, tb.want, page[i+len(begin):j],
			"the %s table of %s differs from the code: go test ./scenarios/ -run TestScenarioReference -update", tb.name, referencePage)
	}
	if *update {
		require.NoError(t, os.WriteFile(referencePage, []byte(page), 0o644))
	}
	for _, k := range scenarios.Kinds() {
		assert.Contains(t, page, "\n### `"+k.Kind+"`\n", "%s explains the fault kind %s", referencePage, k.Kind)
	}
	for _, f := range []string{"ttl", "drift", "retries", "retry_delay", "watchdog", "fencing", "validity_check", "node_timeout", "tolerance", "wait",
		"nodes", "replicas", "persistence", "clients", "keys", "read_ratio", "roles", "nest", "duration", "hold", "think", "seed"} {
		assert.Contains(t, page, "| `"+f+"` |", "%s explains %s", referencePage, f)
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	w := strings.Index(string(readme), "## Writing a scenario")
	require.True(t, w >= 0)
	section := string(readme)[w:]
	if n := strings.Index(section[3:], "\n## "); n >= 0 {
		section = section[:n+3]
	}
	assert.Contains(t, section, "](docs/scenarios.md)", "README's Writing a scenario links to the reference")
}
