package adapter_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// TestStubbornChildrenEnd: the children of a process design that ignore
// the end of their stdin are stopped together, in about one grace
// period, not one after another; the processes they started (one in
// their group, one in a session of its own, both holding their stdout)
// are killed and reaped with them: nothing of theirs is left when the run
// returns.
func TestStubbornChildrenEnd(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "stubborn.sh"))
	if err != nil {
		t.Fatal(err)
	}
	const clients = 32
	for _, tc := range []struct {
		name, mode string
		// within bounds the run's end: 32 children one after another
		// took 32 grace periods and more
		within time.Duration
	}{
		{"ignores stdin EOF", "plain", 15 * time.Second},
		{"leaves sleepers behind", "sleepers", 15 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pids")
			algo := "process:/bin/sh " + script + " " + tc.mode + " " + pidfile
			s, err := scenarios.Parse("stubborn.yaml", []byte("name: stubborn\nalgorithm: setpx\nclients: "+strconv.Itoa(clients)+"\nduration: 200ms\noptions: {ttl: 100ms}\n"))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := run.Execute(context.Background(), s, algo, run.Options{Out: t.TempDir(), RealTime: true})
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(simtest.HangGuard):
				t.Fatalf("hung: the run has not returned %v after it started", simtest.HangGuard)
			}
			took := time.Since(start)
			t.Logf("the run with %d stubborn children took %v", clients, took.Round(time.Millisecond))
			if took > tc.within {
				t.Errorf("the run took %v with %d stubborn children, want under %v (closed one after another?)", took, clients, tc.within)
			}
			if tc.mode == "sleepers" {
				b, err := os.ReadFile(pidfile)
				if err != nil {
					t.Fatal(err)
				}
				pids := strings.Fields(string(b))
				if len(pids) < 2*clients {
					t.Fatalf("%d sleepers recorded, want at least %d", len(pids), 2*clients)
				}
				for _, p := range pids {
					pid, _ := strconv.Atoi(p)
					if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
						stat, _ := os.ReadFile("/proc/" + p + "/stat")
						t.Errorf("sleeper %d outlived the run (kill: %v): %s", pid, err, stat)
					}
				}
			}
			if kids := children(t); len(kids) > 0 {
				t.Errorf("children left after the run: %v", kids)
			}
		})
	}
}
