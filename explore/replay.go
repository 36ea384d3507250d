package explore

import (
	"context"
	"os"
	"testing"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// Replay runs the scenario file path (one an exploration wrote) once in
// virtual time for the design it names, from a go test of the program
// that registers that design with lock.Register: `locksim run` does not
// know such a design, so this is how its findings are replayed. The run
// directory goes under a new directory in os.TempDir() that is kept when
// t fails and removed when it passes; its path is logged. t fails when
// the run does not meet the file's expect: a file explore wrote expects
// the failure it found, so Replay passes while the design still fails
// that way (change the expect to safe to keep the file as the test of a
// fix). It returns the run's outcome (the zero Outcome after failing t
// when the file cannot run).
//
//	func TestMyLockFinding(t *testing.T) {
//		explore.Replay(t, "testdata/explore-my-lock-1-claim-unsafe.yaml")
//	}
func Replay(t *testing.T, path string) run.Outcome {
	t.Helper()
	s, err := scenarios.LoadFile(path)
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
		return run.Outcome{}
	}
	algos := s.Algorithms()
	if len(algos) != 1 {
		t.Fatalf("replay %s: the scenario names %d designs; explore writes one", path, len(algos))
		return run.Outcome{}
	}
	dir, err := os.MkdirTemp("", "locksim-replay-"+slug(algos[0])+"-")
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
		return run.Outcome{}
	}
	t.Cleanup(func() {
		if !t.Failed() {
			_ = os.RemoveAll(dir)
		}
	})
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	var zoom string
	if e, ok := s.Expect(algos[0]); ok && len(e.Checks) == 1 {
		for name := range e.Checks {
			zoom = name
		}
	}
	o, err := run.Execute(ctx, s, algos[0], run.Options{Out: dir, Zoom: zoom})
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
		return o
	}
	if !o.AsExpected {
		t.Errorf("replay %s: %s: verdict %s, expected %s; run directory %s", path, algos[0], o.Verdict, o.Expected, o.Dir)
	} else {
		t.Logf("replay %s: %s: verdict %s as expected; run directory %s", path, algos[0], o.Verdict, o.Dir)
	}
	return o
}
