package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	full := filepath.Join(dir, "full")
	require.NoError(t, os.Mkdir(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), nil, 0o644))

	assert.NoError(t, CheckOutRoot(dir), "an existing directory")
	assert.NoError(t, CheckOutRoot(full), "a root may hold earlier runs")
	assert.NoError(t, CheckOutRoot(filepath.Join(dir, "a", "b", "c")), "made when needed")
	assert.NoError(t, CheckOutDir(filepath.Join(dir, "new")))
	assert.ErrorContains(t, CheckOutDir(full), "not empty")
	assert.ErrorContains(t, CheckOutRoot(file), "not a directory", "even an empty file")
	assert.ErrorContains(t, CheckOutRoot(filepath.Join(file, "a", "b")), "not a directory")
	assert.ErrorContains(t, CheckOutRoot("/proc/locksim/results"), "/proc is not writable")
	assert.Error(t, CheckOutRoot(""))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, left, 2, "the probes leave nothing behind")
}
