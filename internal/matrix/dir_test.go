package matrix

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// TestReadFillsTypedExpectation: a matrix.json from before
// expected_verdict still gives each cell its typed expectation.
func TestReadFillsTypedExpectation(t *testing.T) {
	dir := t.TempDir()
	old := `{"cells":[{"scenario":"a","algorithm":"setpx","status":"run","expected":"unsafe (claim safe)","expected_checks":{"claim":"safe"}},` +
		`{"scenario":"a","algorithm":"fenced","status":"run"}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileJSON), []byte(old), 0o644))
	m, err := Read(dir)
	require.NoError(t, err)
	e := m.Cells[0].Expectation()
	assert.Equal(t, vocab.Unsafe, e.Verdict)
	assert.Equal(t, map[string]vocab.Verdict{"claim": vocab.Safe}, e.Checks)
	assert.Equal(t, scenarios.Expectation{}, m.Cells[1].Expectation(), "nothing expected")
}
