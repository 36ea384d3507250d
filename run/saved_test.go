package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/locksim/locksim/vocab"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
)

// A run directory written before verdict.json recorded the run's setup
// (testdata/before-setup: gc-pause-after-check on setpx) reads back with
// its expectation typed, checks again to the verdict it saved, and is
// judged as expected.
func TestSavedRunFromBeforeSetupChecksAgain(t *testing.T) {
	saved, err := run.ReadDir(context.Background(), filepath.Join("testdata", "before-setup"))
	require.NoError(t, err)
	assert.Equal(t, scenarios.Expectation{Verdict: vocab.Unsafe,
		Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Safe}}, saved.Expectation())
	rc, err := saved.Check(context.Background(), 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, saved.Judge(&rc))
	assert.Equal(t, vocab.Unsafe, rc.Result.Verdict)
	assert.Empty(t, rc.Unplayed)
	assert.True(t, rc.AsExpected)
	assert.NoError(t, saved.Mismatch(rc))
}

// A re-check that gives another verdict than the saved one, or one the run
// did not expect, is a mismatch naming both.
func TestSavedRunMismatch(t *testing.T) {
	saved, err := run.ReadDir(context.Background(), filepath.Join("testdata", "before-setup"))
	require.NoError(t, err)
	rc, err := saved.Check(context.Background(), 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, saved.Judge(&rc))

	saved.File.Verdict = vocab.Safe
	assert.EqualError(t, saved.Mismatch(rc), "re-check gives unsafe, the run saved safe")
	saved.File.Verdict = vocab.Unsafe
	saved.File.Expected = vocab.Safe
	require.NoError(t, saved.Judge(&rc))
	assert.False(t, rc.AsExpected)
	assert.EqualError(t, saved.Mismatch(rc), "verdict unsafe is not what the run expected (safe)")
}

// A directory without verdict.json is the user's input (BadDirError),
// named in one line.
func TestReadDirNotARunDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "history.jsonl"), nil, 0o644))
	_, err := run.ReadDir(context.Background(), dir)
	var bad *run.BadDirError
	require.True(t, errors.As(err, &bad), "%v", err)
	assert.Contains(t, err.Error(), dir+" is not a run directory")
}
