package pids

import (
	"os"
	"os/exec"
	"testing"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is alive")
	}
	if Alive(0) || Alive(-1) {
		t.Fatal("no pid 0 or below names a process of its own")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Skip("the reaped child's pid was reused at once")
	}
}
