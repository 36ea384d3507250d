package ownlock_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/locksim/locksim/sim/simtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, simtest.LeakOptions()...) }
