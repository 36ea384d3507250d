package bench_test

import (
	"testing"

	"go.uber.org/goleak"
)

// A run starts a goroutine per client and per node; every one must be gone
// once Run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
