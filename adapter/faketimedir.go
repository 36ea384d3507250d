package adapter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/locksim/locksim/internal/pids"
)

// A child's spec file lives in a directory of its own,
// $TMPDIR/locksim-faketime-pid<pid>-<random>, that locksim removes when the
// child's clock closes (a normal exit, Ctrl-C, SIGTERM). A SIGKILLed
// locksim cannot, so the directory also holds a lock file flocked by its
// owner for the directory's life; the kernel drops that lock when the
// owner dies, however it dies, and the next locksim removes every
// directory whose lock it can take. A live owner's lock cannot be taken,
// and a pid reused by another process does not keep a dead owner's
// directory alive: the lock, not the pid, says who is alive.
const (
	faketimeDirPrefix = "locksim-faketime-pid"
	faketimeLockName  = "owner.lock"
)

// faketimeDir is one spec directory, held by this process.
type faketimeDir struct {
	path string
	lock *os.File // flocked; closing it releases the directory
}

// sweepOnce sweeps $TMPDIR once per process, before its first directory.
var sweepOnce sync.Once

// newFaketimeDir makes a spec directory under base ("" for $TMPDIR); the
// first in a process sweeps $TMPDIR's stale ones first.
func newFaketimeDir(base string) (*faketimeDir, error) {
	sweepOnce.Do(func() {
		sweepFaketimeDirs(os.TempDir())
		sweepFaketimeShm(shmDir)
	})
	if base == "" {
		base = os.TempDir()
	}
	path, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-", faketimeDirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("faketime: %w", err)
	}
	// the lock file appears under its name only once flocked (a rename),
	// so a sweep never finds it free while its owner lives
	tmp := filepath.Join(path, faketimeLockName+".tmp")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(tmp, filepath.Join(path, faketimeLockName))
		}
		if err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(path)
		return nil, fmt.Errorf("faketime: lock %s: %w", path, err)
	}
	return &faketimeDir{path: path, lock: f}, nil
}

// remove removes the directory, then lets go of its lock.
func (d *faketimeDir) remove() {
	_ = os.RemoveAll(d.path)
	_ = d.lock.Close()
}

// sweepFaketimeDirs removes the spec directories under base whose owner
// is dead: those whose lock file it can flock, and those without one
// (their owner died between making the directory and locking it) whose
// pid is not alive. What it cannot read it leaves; directories of other
// names (an older locksim's, without a pid) it leaves too, since nothing
// says whether their owner lives.
func sweepFaketimeDirs(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, faketimeDirPrefix+"*"))
	for _, dir := range dirs {
		staleFaketimeDir(dir)
	}
}

// staleFaketimeDir removes dir when its owner is dead and says whether it
// did.
func staleFaketimeDir(dir string) bool {
	f, err := os.Open(filepath.Join(dir, faketimeLockName))
	if errors.Is(err, os.ErrNotExist) {
		pid, ok := faketimeDirPid(dir)
		if !ok || pids.Alive(pid) {
			return false
		}
		// a dead owner that never locked: nobody else can lock it
		// either, since the lock file is only ever renamed into place
		// by its owner
		return os.RemoveAll(dir) == nil
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // held: its owner lives
	}
	// removed while this sweep holds the lock, so another sweep that
	// opened the file too finds the lock held or the directory gone
	return os.RemoveAll(dir) == nil
}

// shmDir is where libfaketime's shared memory and semaphores live.
const shmDir = "/dev/shm"

// sweepFaketimeShm removes from dir the shared memory and semaphores
// libfaketime made for processes that are gone (faketime_shm_<pid>,
// sem.faketime_sem_<pid>): libfaketime removes them only when its process
// exits normally, so a killed child, or the children of a SIGKILLed
// locksim, leave them, and a later process given the same pid fails to
// start. A pid that is alive keeps its files, whoever it is now.
func sweepFaketimeShm(dir string) {
	for _, pattern := range []string{"faketime_shm_*", "sem.faketime_sem_*"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range files {
			digits := strings.TrimPrefix(strings.TrimPrefix(filepath.Base(f), "sem.faketime_sem_"), "faketime_shm_")
			pid, err := strconv.Atoi(digits)
			if err != nil || pid <= 0 || pids.Alive(pid) {
				continue
			}
			_ = os.Remove(f)
		}
	}
}

// faketimeDirPid is the owner's pid in a spec directory's name.
func faketimeDirPid(dir string) (int, bool) {
	rest := strings.TrimPrefix(filepath.Base(dir), faketimeDirPrefix)
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
