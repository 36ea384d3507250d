// Package pids answers one question about a process by its pid, for the
// sweeps that reclaim what a dead locksim left behind (node directories,
// libfaketime's files, unfinished result directories).
package pids

import (
	"errors"
	"syscall"
)

// Alive reports whether pid names a live process; EPERM means it exists
// under another user. A pid the kernel reused for another process keeps
// what it names until that process ends too: the safe side.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
