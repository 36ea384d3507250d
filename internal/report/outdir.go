package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RunsDir is the directory under a results root that holds the run
// directories: <root>/locksim/<scenario>/<stamp>-<design>-s<seed>.
const RunsDir = "locksim"

// CheckOutRoot tells, before any work starts, whether a results root can
// be written: it must be a directory or not exist yet, and the nearest
// directory that does exist must take a new entry. A run that finds this
// out only when its report is due has spent its whole duration for nothing.
// The error says what is wrong with path in a few words; the caller names
// the flag.
func CheckOutRoot(path string) error {
	return checkOut(path, false)
}

// CheckOutDir is CheckOutRoot for a directory that must hold nothing but
// what is written into it: an existing one must also be empty.
func CheckOutDir(path string) error {
	return checkOut(path, true)
}

func checkOut(path string, wantEmpty bool) error {
	if path == "" {
		return errors.New("empty path")
	}
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		if _, err := os.Stat(path); err != nil {
			// MkdirAll would fail on it after the run, and a rename
			// would replace the link.
			return fmt.Errorf("is a symlink to %s, which %v", target, describe(err))
		}
		if wantEmpty {
			// The directory is renamed into place: the link itself
			// would be replaced, not filled.
			return fmt.Errorf("is a symlink (to %s): give the directory itself", target)
		}
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.IsDir():
		return errors.New("exists and is not a directory")
	case err == nil:
		if wantEmpty {
			entries, err := os.ReadDir(path)
			if err != nil {
				return err
			}
			if len(entries) > 0 {
				return errors.New("exists and is not empty")
			}
		}
		return probeWritable(path)
	case !errors.Is(err, fs.ErrNotExist):
		// ENOTDIR (a parent is a file), EACCES on a parent, ELOOP...
		return unwrapPath(err)
	}
	// The path is to be made: its nearest existing ancestor decides.
	// Each step goes one level up, so the walk ends at the root.
	for dir := filepath.Clean(path); filepath.Dir(dir) != dir; {
		dir = filepath.Dir(dir)
		fi, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return unwrapPath(err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return probeWritable(dir)
	}
	return nil // the root always exists; reached only on odd paths
}

// probeWritable makes and removes an entry in dir. Permission bits do not
// tell: root ignores them, and a read-only mount or a full quota ignores
// root.
func probeWritable(dir string) error {
	tmp, err := os.MkdirTemp(dir, ".locksim-probe-")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, unwrapPath(err))
	}
	return os.Remove(tmp)
}

// unwrapPath drops a *PathError's operation and path (the caller names the
// path) and keeps the reason.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describe says why a symlink's target cannot be used.
func describe(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "does not exist"
	}
	return "cannot be reached: " + unwrapPath(err).Error()
}
