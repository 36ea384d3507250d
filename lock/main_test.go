package lock_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Watchdogs are goroutines: every one must be gone once its lease is
// released (or its client stopped), and so must the test clusters'.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
