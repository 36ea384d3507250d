package pids

import (
	"os"
	"os/exec"
	"testing"
	"time"
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

// A child that has exited but is not reaped yet is a zombie: not alive.
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Wait() }()
	for i := 0; i < 500 && !zombie(pid); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if !zombie(pid) {
		t.Fatal("the exited child never showed as a zombie")
	}
	if Alive(pid) {
		t.Fatal("a zombie is not alive")
	}
}
