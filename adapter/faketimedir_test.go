package adapter

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ownerEnv makes the test binary an owner of one spec directory under
// $TMPDIR: it prints the directory's path and holds it until killed (or
// its stdin closes).
const ownerEnv = "LOCKSIM_TEST_FAKETIME_DIR_OWNER"

func init() {
	if os.Getenv(ownerEnv) != "1" {
		return
	}
	d, err := newFaketimeDir("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Println(d.path)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	d.remove()
	os.Exit(0)
}

// startOwner starts another process that makes and holds a spec directory
// under base, and returns it with the directory.
func startOwner(t *testing.T, base string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), ownerEnv+"=1", "TMPDIR="+base)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("owner: %v", err)
	}
	return cmd, strings.TrimSpace(line)
}

// TestStaleFaketimeDirsSwept: a sweep removes the spec directory of an
// owner killed by SIGKILL and keeps those of live owners, in this process
// and in another; a directory that names a dead pid and was never locked
// goes too, while one naming a live pid, or of an older locksim's name,
// stays.
func TestStaleFaketimeDirsSwept(t *testing.T) {
	base := t.TempDir()
	mine, err := newFaketimeDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.remove()
	owner, theirs := startOwner(t, base)
	if filepath.Dir(theirs) != base || !strings.HasPrefix(filepath.Base(theirs), fmt.Sprintf("%s%d-", faketimeDirPrefix, owner.Process.Pid)) {
		t.Fatalf("the owner's directory %s is not %s/%s%d-*", theirs, base, faketimeDirPrefix, owner.Process.Pid)
	}
	unlockedLive := filepath.Join(base, fmt.Sprintf("%s%d-1", faketimeDirPrefix, os.Getpid()))
	legacy := filepath.Join(base, "locksim-faketime-123456")
	for _, d := range []string{unlockedLive, legacy} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}

	sweepFaketimeDirs(base)
	for _, d := range []string{mine.path, theirs, unlockedLive, legacy} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a live owner's directory was swept: %v", err)
		}
	}

	// SIGKILL: the owner cannot remove its directory, the kernel drops
	// its lock
	if err := owner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	if _, err := os.Stat(theirs); err != nil {
		t.Fatalf("the killed owner's directory is already gone: %v", err)
	}
	unlockedDead := filepath.Join(base, fmt.Sprintf("%s%d-2", faketimeDirPrefix, owner.Process.Pid))
	if err := os.Mkdir(unlockedDead, 0o700); err != nil {
		t.Fatal(err)
	}

	sweepFaketimeDirs(base)
	for _, d := range []string{theirs, unlockedDead} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s of a dead owner was kept", d)
		}
	}
	for _, d := range []string{mine.path, unlockedLive, legacy} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a live owner's directory was swept: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(mine.path, faketimeLockName)); err != nil {
		t.Errorf("the live directory lost its lock file: %v", err)
	}
}

// TestStaleFaketimeShmSwept: a sweep removes libfaketime's shared memory
// and semaphore files of processes that are gone (a SIGKILLed child's)
// and keeps those of live processes and files of other names.
func TestStaleFaketimeShmSwept(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("/bin/true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live := gone.Process.Pid, os.Getpid()
	name := func(f string, pid int) string { return filepath.Join(dir, fmt.Sprintf(f, pid)) }
	stale := []string{name("faketime_shm_%d", dead), name("sem.faketime_sem_%d", dead)}
	kept := []string{name("faketime_shm_%d", live), name("sem.faketime_sem_%d", live), filepath.Join(dir, "faketime_shm_x"), filepath.Join(dir, "other_1")}
	for _, f := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sweepFaketimeShm(dir)
	for _, f := range stale {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s of a dead process was kept", f)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was swept: %v", f, err)
		}
	}
}
