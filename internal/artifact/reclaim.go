package artifact

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/pids"
)

// partialMark follows a directory's readable name in its temporary name,
// then its owner's pid: .<name>.partial-pid<pid>-<random>.
const partialMark = ".partial-pid"

// reclaimDepth is how deep under a results root temporary directories are
// looked for: runs are built in <root>/locksim/<scenario>/, matrices in
// <root>/matrix/, lockbench runs one level down.
const reclaimDepth = 3

// Partial is a directory NewDir started that was never published.
type Partial struct {
	Path string
	PID  int // its owner
}

// ReclaimPartial removes the temporary directories under root (down to
// reclaimDepth levels, not into hidden directories) whose owner process
// is gone: what a run killed before it
// could clean up (a second signal, kill -9) left. Those of running
// processes are left alone; so are those of an unknown owner. A root that
// does not exist has none.
func ReclaimPartial(root string) ([]Partial, error) {
	return reclaim(root, reclaimDepth)
}

// ReclaimPartialBeside is ReclaimPartial for one results directory that a
// caller is about to write (lockbench's --out): it looks only in dir's
// parent, where NewDir builds dir and its siblings, not below it, so that
// an --out in a shared directory (/tmp/run) does not walk that
// directory's tree.
func ReclaimPartialBeside(dir string) ([]Partial, error) {
	return reclaim(filepath.Dir(filepath.Clean(dir)), 1)
}

// reclaim removes the dead owners' temporary directories under root, down
// to depth levels.
func reclaim(root string, depth int) ([]Partial, error) {
	var removed []Partial
	var errs []error
	var walk func(dir string, level int)
	walk = func(dir string, level int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			return
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if pid, ok := partialOwner(e.Name()); ok {
				if !pids.Alive(pid) {
					if err := os.RemoveAll(path); err != nil {
						errs = append(errs, err)
						continue
					}
					removed = append(removed, Partial{Path: path, PID: pid})
				}
				continue
			}
			if level < depth && !strings.HasPrefix(e.Name(), ".") {
				walk(path, level+1)
			}
		}
	}
	walk(root, 1)
	if len(errs) > 0 {
		return removed, fmt.Errorf("remove unfinished result directories: %w", errs[0])
	}
	return removed, nil
}

// partialOwner is the pid in a temporary directory's name.
func partialOwner(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	i := strings.LastIndex(name, partialMark)
	if i < 0 {
		return 0, false
	}
	pid, _, ok := strings.Cut(name[i+len(partialMark):], "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

// Reclaimed says in one line what a reclaim removed, e.g. "removed 2
// unfinished result directories that ended locksim runs left in DIR (pid
// 41, 42)"; runs names whose runs they were. Empty when nothing was.
func Reclaimed(removed []Partial, runs, where string) string {
	if len(removed) == 0 {
		return ""
	}
	pids := make([]string, len(removed))
	for i, d := range removed {
		pids[i] = strconv.Itoa(d.PID)
	}
	what := "directory"
	if len(removed) > 1 {
		what = "directories"
	}
	return fmt.Sprintf("removed %d unfinished result %s that ended %s left in %s (pid %s)",
		len(removed), what, runs, where, strings.Join(pids, ", "))
}
