package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A child may start processes of its own (a background helper, a daemon
// that calls setsid), and none of them may outlive the run. Three things
// find them when the child is closed:
//
//   - its process group: the child leads a group of its own (Setpgid),
//     which its plain background processes stay in, and the whole group
//     gets SIGKILL;
//   - a mark in the environment, treeEnv=<locksim pid>-<child number>,
//     that every descendant inherits unless it clears it, so a
//     descendant that left the group (setsid) is found in /proc and
//     killed too;
//   - locksim as child subreaper (PR_SET_CHILD_SUBREAPER, from the first
//     child on): a descendant orphaned by the child's exit is reparented
//     to locksim rather than to init, so locksim reaps what it killed,
//     and a descendant of the group that exited on its own is reaped
//     instead of staying a zombie.
//
// Only pids of this child's tree are ever waited for (its group's, or
// marked with its mark), never another process's child.
const treeEnv = "LOCKSIM_ADAPTER_TREE"

// treeSeq numbers the children of this process for their marks.
var treeSeq atomic.Int64

// newTreeMark is the mark of a new child.
func newTreeMark() string {
	return fmt.Sprintf("%d-%d", os.Getpid(), treeSeq.Add(1))
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// becomeSubreaper makes locksim the subreaper of its descendants, once;
// where the kernel refuses (before Linux 3.4), orphans go to init, which
// reaps them, and only the killing is locksim's.
var becomeSubreaper = sync.OnceFunc(func() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
})

// treeGrace bounds one tree.end's wait for the killed tree to be gone.
const treeGrace = time.Second

// tree is one child's process tree as tree.end has found it: the pids
// once seen in it stay its own, since a killed descendant's mark can no
// longer be read once it is a zombie, and the zombie is reaped only after
// its parent has exited and the kernel has reparented it to locksim,
// possibly at a later call.
type tree struct {
	pgid  int // the child's pid, its group's id
	mark  string
	mu    sync.Mutex
	known map[int]bool
}

func newTree(child int, mark string) *tree {
	return &tree{pgid: child, mark: mark, known: map[int]bool{child: true}}
}

// end kills the process group and every process carrying the mark, and
// reaps those of them that are locksim's own children (orphans
// reparented to it), except the child itself, whose exec.Cmd waits for
// it. It is called before that wait, so the group's id (the child's pid)
// cannot have gone to another process.
//
// It looks at /proc until none of the tree is left alive or waiting to
// be reparented: one forked while it looked is found by the next look.
// It gives up after treeGrace; a later call goes on from what this one
// found.
func (t *tree) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	me := os.Getpid()
	deadline := time.Now().Add(treeGrace)
	for {
		_ = syscall.Kill(-t.pgid, syscall.SIGKILL)
		left := false
		for _, p := range procs() {
			if p.pid == me || !(t.known[p.pid] || p.pgrp == t.pgid || p.marked(t.mark)) {
				continue
			}
			t.known[p.pid] = true
			switch {
			case p.state != 'Z':
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
				left = true
			case p.pid == t.pgid:
				// the child: its exec.Cmd reaps it
			case p.ppid == me:
				reap(p.pid)
			case t.known[p.ppid]:
				left = true // its parent, of the tree, has not exited yet
			}
		}
		if !left || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exitedWithin waits up to d for the unreaped child pid to exit (a
// zombie), without reaping it, and says whether it did.
func exitedWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return true // no /proc, or gone
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// reap waits for the killed child pid, up to treeGrace.
func reap(pid int) {
	deadline := time.Now().Add(treeGrace)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil && !errors.Is(err, syscall.EINTR) || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// proc is what /proc/<pid>/stat says of a process.
type proc struct {
	pid, ppid, pgrp int
	state           byte
}

// marked says whether the process's environment carries mark. A zombie's
// environment cannot be read; its group says whether it is the tree's.
func (p proc) marked(mark string) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
	if err != nil {
		return false
	}
	want := []byte(treeEnv + "=" + mark)
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// procs lists the processes /proc shows (none where there is no /proc).
func procs() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) < 3 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || f[0] == "" {
			continue
		}
		out = append(out, proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return out
}
