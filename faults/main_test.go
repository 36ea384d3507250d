package faults_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/locksim/locksim/sim/simtest"
)

// Faults start proxies, timers and nemesis goroutines; every one must be
// gone once its run or world is closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, simtest.LeakOptions()...)
}
