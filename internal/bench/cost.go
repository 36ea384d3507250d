package bench

import (
	"runtime/metrics"
	"syscall"
	"time"
)

// costMetric counts every heap allocation of the process since it
// started; reading it does not stop the world (runtime.ReadMemStats does).
const costMetric = "/gc/heap/allocs:objects"

// costReading is what the process had spent at one moment: heap
// allocations and CPU time, user and system.
type costReading struct {
	allocs uint64
	cpu    time.Duration
}

// readCost reads the process's allocations and CPU time. CPU time is 0
// where getrusage fails (it does not on Linux).
func readCost() costReading {
	s := []metrics.Sample{{Name: costMetric}}
	metrics.Read(s)
	var c costReading
	if s[0].Value.Kind() == metrics.KindUint64 {
		c.allocs = s[0].Value.Uint64()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return c
}

// since is what was spent between an earlier reading and c.
func (c costReading) since(earlier costReading) costReading {
	return costReading{allocs: c.allocs - earlier.allocs, cpu: c.cpu - earlier.cpu}
}
