//go:build !unix

package checker

import (
	"testing"
	"time"
)

// cpuTime is zero where getrusage is missing: cpu-s/op then reads 0.
func cpuTime(*testing.B) time.Duration { return 0 }
