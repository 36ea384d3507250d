package node

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/internal/pids"
)

// A redis cluster's temp dir is named after the process that made it,
// locksim-redis-pid<PID>-<random>, so that a later run can tell the dirs
// of a process that is gone (kill -9, a crash, a power cut: no cleanup ran)
// from those of a run still going. Pdeathsig has already ended the
// redis-servers of such a process; only their data is left.
const (
	clusterDirPrefix = "locksim-redis-"
	clusterDirPID    = clusterDirPrefix + "pid"
)

// clusterDirPattern is os.MkdirTemp's pattern for this process's cluster dirs.
func clusterDirPattern() string {
	return clusterDirPID + strconv.Itoa(os.Getpid()) + "-"
}

// LeftDir is a cluster temp dir found by LeftDirs.
type LeftDir struct {
	Path string
	// PID is the process that made it; 0 for a dir of an older locksim,
	// whose name does not say.
	PID int
	// Gone: the owner no longer runs, so the dir is stale. False when the
	// owner is unknown (PID 0) or still running.
	Gone bool
}

// LeftDirs lists the cluster temp dirs in dir ("" is os.TempDir()), in
// name order.
func LeftDirs(dir string) ([]LeftDir, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []LeftDir
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, clusterDirPrefix) {
			continue
		}
		d := LeftDir{Path: filepath.Join(dir, name)}
		if rest, ok := strings.CutPrefix(name, clusterDirPID); ok {
			if pid, _, ok := strings.Cut(rest, "-"); ok {
				if n, err := strconv.Atoi(pid); err == nil && n > 0 {
					d.PID, d.Gone = n, !pids.Alive(n)
				}
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b LeftDir) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// ReclaimLeftDirs removes the cluster temp dirs in dir ("" is os.TempDir())
// whose owner is gone and returns them. Dirs of running processes and of
// unknown owners are left alone.
func ReclaimLeftDirs(dir string) ([]LeftDir, error) {
	all, err := LeftDirs(dir)
	if err != nil {
		return nil, err
	}
	var removed []LeftDir
	var errs []error
	for _, d := range all {
		if !d.Gone {
			continue
		}
		if err := os.RemoveAll(d.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, d)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("remove stale node directories: %w", errs[0])
	}
	return removed, nil
}
