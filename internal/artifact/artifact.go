// Package artifact writes locksim's result files so that a reader never
// sees half of one: a directory is built under a hidden temporary name,
// every file in it synced, and renamed into place once complete; a single
// file is written beside its final name and renamed over it. It also names
// results: the UTC stamp every run, matrix and lockbench directory starts
// with, and the -2, -3... suffix when a name is taken.
package artifact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Stamp is the UTC second a result started, as its directory names it:
// 20261124T013400Z.
func Stamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// ErrExists: the final name was taken while the directory was being
// built; nothing was replaced.
var ErrExists = errors.New("already exists")

// maxSuffix bounds FreeName: a thousand results started in one second
// with one name is a runaway loop, not a workload.
const maxSuffix = 1000

// FreeName returns base, or base-2, base-3... whichever does not exist yet.
// Any error other than "does not exist" (a parent that is a file, a
// directory that cannot be read) ends the search at once: it would be the
// same for every name.
func FreeName(base string) (string, error) {
	for n := 1; n <= maxSuffix; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		_, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("%s and %s-2 to -%d all exist; remove old results", base, filepath.Base(base), maxSuffix)
}

// Dir is a result directory being built: its files go into Path, a hidden
// sibling of the final directory, until Publish renames it into place.
type Dir struct {
	parent string
	path   string
	// synced holds the files WriteNew wrote and synced, by path, which
	// Publish need not open and sync again.
	synced map[string]bool
}

// NewDir starts a directory that will be published in parent (created if
// needed); name only makes the temporary name readable. The temporary
// name carries this process's pid, so that ReclaimPartial can tell one
// whose owner is gone.
func NewDir(parent, name string) (*Dir, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+partialMark+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return &Dir{parent: parent, path: tmp}, nil
}

// Path is where the directory's files go until it is published.
func (d *Dir) Path() string { return d.path }

// WriteNew writes the new file name (it must not exist) in the directory
// through a buffer, so a failing writer leaves no file behind, and syncs
// it before closing it: Publish, which must publish complete files, then
// need not open it again to sync it (a matrix of thousands of runs
// spends as much on opening, syncing and closing its files as on writing
// them).
func (d *Dir) WriteNew(name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	path := filepath.Join(d.path, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if d.synced == nil {
		d.synced = map[string]bool{}
	}
	d.synced[path] = true
	return nil
}

// syncFile syncs a file WriteNew wrote; tests count the calls.
var syncFile = func(f *os.File) error { return f.Sync() }

// Discard removes everything written: a failed or interrupted result
// leaves nothing that looks like one.
func (d *Dir) Discard() { _ = os.RemoveAll(d.path) }

// Publish syncs every file in the directory, then renames it to final,
// which must not exist (an empty directory there is refused too, as
// rename(2) would replace it) unless replaceEmpty is set. On error the
// directory stays where it is; the caller decides whether to Discard it.
func (d *Dir) Publish(final string, replaceEmpty bool) error {
	return d.PublishSynced(final, replaceEmpty, nil)
}

// PublishSynced is Publish of a directory some of whose subdirectories
// are results published whole inside it (each by its own Dir's Publish,
// which synced it): synced lists them, as paths relative to Path, and
// they are not synced a second time. A matrix holds thousands of run
// directories; syncing each of their files again would cost it seconds.
// The files WriteNew wrote were synced as it wrote them.
func (d *Dir) PublishSynced(final string, replaceEmpty bool, synced []string) error {
	skip := make(map[string]bool, len(synced)+len(d.synced))
	for _, rel := range synced {
		skip[filepath.Join(d.path, filepath.FromSlash(rel))] = true
	}
	for path := range d.synced {
		skip[path] = true
	}
	if err := syncTree(d.path, skip); err != nil {
		return err
	}
	if replaceEmpty {
		err := os.Remove(final)
		switch {
		case errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY):
			return fmt.Errorf("%s: %w", final, ErrExists)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: %w", final, err)
		}
	} else if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("%s: %w", final, ErrExists)
	}
	if err := os.Rename(d.path, final); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fmt.Errorf("%s: %w", final, ErrExists)
		}
		return err
	}
	d.path = final
	// The rename is done; a failed sync of the parent only weakens
	// durability, and undoing it now would lose a complete result.
	_ = SyncDir(filepath.Dir(final))
	return nil
}

// syncTree syncs every regular file and directory under root but the
// paths in skip (a directory with what it holds), so that a rename that
// publishes root publishes complete files.
func syncTree(root string, skip map[string]bool) error {
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip[path] {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.IsDir() && !e.Type().IsRegular() {
			return nil
		}
		return syncPath(path)
	})
}

// syncPath syncs one file or directory; tests count the calls.
var syncPath = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// WriteSynced writes a new file (it must not exist) through a buffer and
// syncs it to disk: a failing writer leaves no file behind.
func WriteSynced(path string, write func(io.Writer) error) error {
	return writeSynced(write, func() (*os.File, error) {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	})
}

// WriteFileAtomic replaces path with what write produces: written and
// synced under a temporary name next to it, then renamed over it, so a
// reader sees the old file or the whole new one; on error nothing changes.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	var tmp string
	err = writeSynced(write, func() (*os.File, error) {
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
		if err == nil {
			tmp = f.Name()
			err = f.Chmod(0o644) // CreateTemp makes it 0600
		}
		return f, err
	})
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		if tmp != "" {
			_ = os.Remove(tmp)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	_ = SyncDir(filepath.Dir(path)) // the rename is done; this is durability only
	return nil
}

// writeSynced renders write into a buffer (so a failing writer leaves no
// file behind) and writes and syncs it to the file open gives.
func writeSynced(write func(io.Writer) error, open func() (*os.File, error)) (err error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	f, err := open()
	if f != nil {
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return err
	}
	return f.Sync()
}

// SyncDir syncs a directory, so that a rename into it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
