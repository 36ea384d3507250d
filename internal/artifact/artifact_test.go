package artifact

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// With every numbered name taken, FreeName gives up with an error naming
// the base; a permanent error ends the search at once.
func TestFreeNameIsBounded(t *testing.T) {
	base := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.Mkdir(base, 0o755))
	for n := 2; n <= maxSuffix; n++ {
		require.NoError(t, os.Mkdir(base+"-"+strconv.Itoa(n), 0o755))
	}
	_, err := FreeName(base)
	require.Error(t, err)
	assert.Contains(t, err.Error(), base)
	require.NoError(t, os.Remove(base+"-"+strconv.Itoa(maxSuffix)))
	name, err := FreeName(base)
	require.NoError(t, err)
	assert.Equal(t, base+"-"+strconv.Itoa(maxSuffix), name)

	_, err = FreeName("/dev/null/x")
	require.Error(t, err, "a parent that is a file")
}

// WriteFileAtomic replaces a file whole, and a failing writer changes
// nothing and leaves no temporary file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	require.NoError(t, WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	err = WriteFileAtomic(path, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return errors.New("boom") })
	require.ErrorContains(t, err, "boom")
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b), "a failed write leaves the old file")
	assert.Equal(t, []string{"page.html"}, listDir(t, dir), "no temporary file left")
}

// A directory is invisible until published, whole once published, refused
// over an existing name (an empty one too unless asked), and gone without
// a trace when discarded.
func TestDirPublish(t *testing.T) {
	parent := t.TempDir()
	d, err := NewDir(parent, "20261124T000000Z")
	require.NoError(t, err)
	require.NoError(t, WriteSynced(filepath.Join(d.Path(), "a.txt"), func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }))
	require.Error(t, WriteSynced(filepath.Join(d.Path(), "a.txt"), func(io.Writer) error { return nil }), "WriteSynced never overwrites")
	require.NoError(t, d.WriteNew("b.txt", func(w io.Writer) error { _, err := io.WriteString(w, "b"); return err }))
	require.Error(t, d.WriteNew("b.txt", func(io.Writer) error { return nil }), "WriteNew never overwrites")
	require.ErrorContains(t, d.WriteNew("c.txt", func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return errors.New("boom") }), "boom")
	final := filepath.Join(parent, "20261124T000000Z")

	require.NoError(t, os.Mkdir(final, 0o755))
	require.ErrorIs(t, d.Publish(final, false), ErrExists, "an empty directory is not replaced unless asked")
	require.NoError(t, d.Publish(final, true))
	assert.Equal(t, []string{"a.txt", "b.txt"}, listDir(t, final), "a failed WriteNew leaves no file")
	b, err := os.ReadFile(filepath.Join(final, "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "b", string(b))
	assert.Equal(t, []string{"20261124T000000Z"}, listDir(t, parent), "no temporary directory left")

	d2, err := NewDir(parent, "x")
	require.NoError(t, err)
	require.ErrorIs(t, d2.Publish(final, true), ErrExists, "a non-empty directory is never replaced")
	d2.Discard()
	assert.Equal(t, []string{"20261124T000000Z"}, listDir(t, parent), "a discarded directory leaves nothing")
}

// PublishSynced syncs everything but the subdirectories it is told were
// synced already, and publishes them with the rest.
func TestPublishSynced(t *testing.T) {
	parent := t.TempDir()
	d, err := NewDir(parent, "m")
	require.NoError(t, err)
	for _, rel := range []string{"m.json", "runs/a/run1/h.jsonl", "runs/a/run2/h.jsonl", "runs/b/run1/h.jsonl"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(d.Path(), rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d.Path(), rel), []byte(rel), 0o644))
	}
	var synced, written []string
	old, oldFile := syncPath, syncFile
	syncPath = func(path string) error {
		rel, err := filepath.Rel(d.Path(), path)
		require.NoError(t, err)
		synced = append(synced, filepath.ToSlash(rel))
		return old(path)
	}
	syncFile = func(f *os.File) error {
		written = append(written, filepath.Base(f.Name()))
		return oldFile(f)
	}
	t.Cleanup(func() { syncPath, syncFile = old, oldFile })
	require.NoError(t, d.WriteNew("m.md", func(w io.Writer) error { _, err := io.WriteString(w, "m"); return err }))
	assert.Equal(t, []string{"m.md"}, written, "WriteNew syncs what it wrote")
	final := filepath.Join(parent, "m")
	require.NoError(t, d.PublishSynced(final, false, []string{"runs/a/run1", "runs/b/run1"}))
	sort.Strings(synced)
	assert.Equal(t, []string{".", "m.json", "runs", "runs/a", "runs/a/run2", "runs/a/run2/h.jsonl", "runs/b"}, synced,
		"every file but those WriteNew synced and the directories published already")
	assert.Equal(t, []string{"m.md"}, written, "each file is synced once")
	b, err := os.ReadFile(filepath.Join(final, "runs", "b", "run1", "h.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, "runs/b/run1/h.jsonl", string(b), "a directory not synced again is published with the rest")
}

// TestReclaimPartialBeside: the sweep for one results directory removes
// the dead owners' unfinished siblings in its parent and does not walk
// below them; a live owner's stays, and so does a published directory.
func TestReclaimPartialBeside(t *testing.T) {
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	parent := t.TempDir()
	deadDir := filepath.Join(parent, ".20260101T000000Z.partial-pid"+dead+"-1")
	liveDir := filepath.Join(parent, ".20260101T000001Z.partial-pid"+live+"-2")
	published := filepath.Join(parent, "20260101T000000Z")
	deeper := filepath.Join(published, "sub", ".x.partial-pid"+dead+"-3")
	for _, d := range []string{deadDir, liveDir, deeper} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	removed, err := ReclaimPartialBeside(filepath.Join(parent, "20260102T000000Z"))
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, Partial{Path: deadDir, PID: ended.Process.Pid}, removed[0])
	assert.NoDirExists(t, deadDir)
	assert.DirExists(t, liveDir)
	assert.DirExists(t, deeper, "only the parent is looked in")

	removed, err = ReclaimPartialBeside(filepath.Join(t.TempDir(), "none", "run"))
	assert.NoError(t, err, "a parent that does not exist yet has none")
	assert.Empty(t, removed)
}
