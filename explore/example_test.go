package explore_test

import (
	"testing"

	"github.com/locksim/locksim/explore"
	"github.com/locksim/locksim/lock"
)

// A lock author registers their design and explores it from their own go
// test: every violation fails the test with the shrunk scenario's path,
// which `locksim run PATH` replays. (TestMyLockExplored would be a test
// function of the author's package; here it is shown, not run.)
func ExampleTest() {
	info, _ := lock.Lookup("setpx") // stands for the author's own design
	info.Name = "my-lock"
	_ = lock.Register(info) // in an init function, before any run

	TestMyLockExplored := func(t *testing.T) {
		explore.Test(t, "my-lock", explore.Config{
			Runs:  300,
			Kinds: []string{"pause-client", "kill-node", "delay"},
		})
	}
	_ = TestMyLockExplored
}
