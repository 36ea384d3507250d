package matrix_test

import (
	"context"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/vtime"
)

// BenchmarkMatrixCatalogue is `locksim matrix --runs 10` on miniredis: the
// built-in catalogue, every design, ten runs a pair, in virtual time, with
// GOGC at 400 as locksim runs, its files written to a temp dir. One
// iteration is one whole matrix, so run it as
//
//	go test -run '^$' -bench MatrixCatalogue -benchtime 1x ./matrix/
//
// ns/op is the wall time, which reads the machine's load too; cpu-s/op is
// the process's CPU for the matrix, which does not, and half of it is the
// wall time on two idle cores if both stay busy.
func BenchmarkMatrixCatalogue(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var cpu time.Duration
	var pairs int
	for b.Loop() {
		cpu0 := cpuTime()
		// Bubbles need a *testing.T, which a benchmark does not have:
		// the matrix runs as the one test of a nested testing.RunTests,
		// the way vtime.Main hosts locksim.
		var m matrix.Matrix
		var err error
		dir := b.TempDir()
		ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
			Name: "matrix",
			F: func(t *testing.T) {
				ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
				m, err = matrix.Run(ctx, matrix.Config{Runs: 10, Out: dir})
			},
		}})
		if !ok || err != nil {
			b.Fatalf("matrix failed: %v", err)
		}
		cpu += cpuTime() - cpu0
		pairs = m.Totals.Cells
		if d := m.Differing(); len(d) > 0 {
			b.Logf("%d of %d pairs differ from their expectation", len(d), pairs)
		}
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(pairs), "pairs")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
