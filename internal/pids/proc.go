// Package pids answers one question about a process by its pid, for the
// sweeps that reclaim what a dead locksim left behind (node directories,
// libfaketime's files, unfinished result directories).
package pids

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// Alive reports whether pid names a live process; EPERM means it exists
// under another user. A zombie (exited, not yet reaped by its parent) is
// not alive: it holds nothing, and a locksim killed with kill -9 whose
// children were reparented to a subreaper that never waits for them
// leaves exactly such zombies. A pid the kernel reused for another
// process keeps what it names until that process ends too: the safe side.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}

// zombie reports whether /proc says pid has exited and waits to be
// reaped; where /proc cannot be read, it says no (the safe side).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and
	// may itself hold spaces and parentheses: it comes after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
