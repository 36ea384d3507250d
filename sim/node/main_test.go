package node_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Nodes, shifters and redis-server waiters all run goroutines; every one
// must be gone once its cluster is closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
