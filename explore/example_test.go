package explore_test

import (
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// A lock author registers their design and explores it from their own go
// test: every cause found fails the test with its shrunk scenario's path,
// which explore.Replay replays from a test of the same package (the
// locksim binary does not know the design). (TestMyLockExplored and
// TestMyLockFinding would be test functions of the author's package; here
// they are shown, not run.)
func ExampleTest() {
	info, _ := lock.Lookup("setpx") // stands for the author's own design
	info.Name = "my-lock"
	_ = lock.Register(info) // in an init function, before any run

	TestMyLockExplored := func(t *testing.T) {
		explore.Test(t, "my-lock", explore.Config{
			Runs:  300,
			Kinds: []vocab.Kind{"pause-client", "kill-node", "delay"},
		})
	}
	TestMyLockFinding := func(t *testing.T) {
		explore.Replay(t, "testdata/explore-my-lock-1-claim-unsafe.yaml")
	}
	_, _ = TestMyLockExplored, TestMyLockFinding
}
