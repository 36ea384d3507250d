package rediscluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/pids"
)

// childEnv makes the test binary a parent that starts a cluster, prints
// its pids and waits to be killed.
const childEnv = "LOCKSIM_REDISCLUSTER_CHILD_DIR"

func TestHelperClusterChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("a helper process of TestNodesDieWithTheirParent, not a test of its own")
	}
	c, err := Start(context.Background(), Options{Server: os.Getenv("LOCKSIM_REDIS_SERVER"), Dir: dir, Masters: 1, ReplicasPerMaster: -1})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("pids", strings.Trim(fmt.Sprint(c.Pids()), "[]"))
	time.Sleep(time.Minute) // until the parent test kills this process
	os.Exit(1)
}

// A parent killed with SIGKILL runs no cleanup: its nodes die with it
// all the same (Pdeathsig), and no server outlives it.
func TestNodesDieWithTheirParent(t *testing.T) {
	server := serverOrSkip(t, "redis-server")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperClusterChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.TempDir(), "LOCKSIM_REDIS_SERVER="+server)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var started []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "error "); ok {
			t.Fatal(rest)
		}
		if rest, ok := strings.CutPrefix(line, "pids "); ok {
			for _, f := range strings.Fields(rest) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				started = append(started, pid)
			}
			break
		}
	}
	if len(started) != 1 {
		t.Fatalf("the child printed pids %v, want one", started)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitFor(t, 5*time.Second, "the node to die with its parent", func() error {
		for _, pid := range started {
			if pids.Alive(pid) {
				return fmt.Errorf("pid %d alive", pid)
			}
		}
		return nil
	})
}
