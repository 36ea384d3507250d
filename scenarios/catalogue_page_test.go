package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// cataloguePage holds the built-in catalogue's verdict matrix.
const cataloguePage = "../docs/catalogue.md"

// TestCatalogueMatrixPage keeps docs/catalogue.md's verdict matrix honest:
// one row per built-in scenario and one column per design, in catalogue
// order, and every cell whose verdict the catalogue asserts shows that
// verdict (TestCatalogue checks the assertions against real runs). Cells
// marked ° are not asserted and show what a measured run gave.
func TestCatalogueMatrixPage(t *testing.T) {
	b, err := os.ReadFile(cataloguePage)
	require.NoError(t, err)
	text := string(b)
	begin, end := strings.Index(text, "<!-- matrix:begin -->"), strings.Index(text, "<!-- matrix:end -->")
	require.True(t, begin >= 0 && end > begin, "%s has the matrix between <!-- matrix:begin --> and <!-- matrix:end -->", cataloguePage)
	var rows [][]string
	for _, line := range strings.Split(text[begin:end], "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.Trim(strings.TrimSpace(c), "`*"))
		}
		rows = append(rows, cells)
	}
	require.NotEmpty(t, rows)
	designs := lock.Names()
	assert.Equal(t, append([]string{"scenario"}, designs...), rows[0], "the columns are the designs in catalogue order")
	builtin := scenarios.Builtin()
	require.Len(t, rows[1:], len(builtin), "one row per built-in scenario")
	for i, s := range builtin {
		row := rows[i+1]
		require.Len(t, row, len(designs)+1, "row %s", s.Name)
		assert.Equal(t, s.Name, row[0], "row %d", i+1)
		applies := map[string]bool{}
		for _, a := range s.Algorithm {
			applies[a] = true
		}
		for j, algo := range designs {
			cell := strings.TrimSpace(strings.Trim(row[j+1], "*°"))
			e, ok := s.Expect(algo)
			switch {
			case len(s.Algorithm) > 0 && !applies[algo]:
				assert.Equal(t, "–", cell, "%s/%s does not apply", s.Name, algo)
			case ok && e.Verdict == vocab.Skip:
				assert.Equal(t, "skip", cell, "%s/%s", s.Name, algo)
			case ok && e.Verdict == vocab.Any:
				assert.True(t, strings.HasSuffix(row[j+1], "°"), "%s/%s is not asserted: mark it °", s.Name, algo)
			case ok:
				assert.Equal(t, string(e.Verdict), cell, "%s/%s", s.Name, algo)
			}
		}
	}
}
