package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeReliability: the README stays within 250 lines, and its
// Reliability section says in 3 to 6 lines what a user of shared servers
// and a scripted check must know (the external-server guard, the process
// group rule, the bounds of check), linking docs/reliability.md, which
// says each of them too.
func TestReadmeReliability(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(readme), "\n"), "\n")
	assert.LessOrEqual(t, len(lines), 250, "README.md has at most 250 lines")

	var section []string
	in := false
	for _, l := range lines {
		switch {
		case l == "## Reliability":
			in = true
		case in && strings.HasPrefix(l, "## "):
			in = false
		case in && strings.TrimSpace(l) != "":
			section = append(section, l)
		}
	}
	require.NotEmpty(t, section, "README.md has a ## Reliability section")
	assert.GreaterOrEqual(t, len(section), 3)
	assert.LessOrEqual(t, len(section), 6, "brief: the details are on docs/reliability.md")
	text := strings.Join(section, " ")
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "reliability.md"))
	require.NoError(t, err)
	page := strings.Join(strings.Fields(string(doc)), " ")
	assert.Contains(t, text, "(docs/reliability.md)")
	for _, what := range []struct{ readme, page []string }{
		{[]string{"--addrs", "locksim:<run id>:", "guard key `locksim:guard`", "second run refuses"},
			[]string{"locksim:<run id>:", "guard key, `locksim:guard`", "refuses to start"}},
		{[]string{"process group", "killed as a group", "subreaper"},
			[]string{"process group of its own", "its group", "subreaper"}},
		{[]string{"`locksim check`", "clients at 1 KiB each", "size and operations", "exit 2"},
			[]string{"`locksim check`", "as many clients as fit in it at 1 KiB each", "no more operations", "(exit 2)"}},
	} {
		for _, w := range what.readme {
			assert.Contains(t, text, w, "README's Reliability section")
		}
		for _, w := range what.page {
			assert.Contains(t, page, w, "docs/reliability.md")
		}
	}
}
