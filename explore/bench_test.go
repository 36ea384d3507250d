package explore

import (
	"context"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/vtime"
)

// BenchmarkExploreRuns measures explored runs per minute: schedules of
// redlock with 2 clients, 3 nodes and 3 s simulated each, drawn from every
// default fault kind, run and checked in virtual time on GOMAXPROCS
// workers, without shrinking or files, with GOGC at 400 as locksim explore
// runs. runs/min is over wall time, so it
// also reads the machine's load; ns/op is the wall time per run.
func BenchmarkExploreRuns(b *testing.B) {
	for _, algo := range []string{"redlock", "setpx"} {
		b.Run(algo, func(b *testing.B) { benchExplore(b, algo) })
	}
}

func benchExplore(b *testing.B, algo string) {
	// Bubbles need a *testing.T, which a benchmark does not have: the
	// exploration runs as the one test of a nested testing.RunTests (the
	// way vtime.Main hosts a program), matched whatever -test.run says.
	// As locksim explore does: the runs allocate much and briefly.
	defer debug.SetGCPercent(debug.SetGCPercent(exploreGCPercent))
	var rep *Report
	var err error
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
		Name: "explore",
		F: func(t *testing.T) {
			ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
			rep, err = Explore(ctx, Config{Algorithm: algo, Clients: 2, Nodes: 3, Duration: 3 * time.Second,
				NoShrink: true, Seed: 1, Runs: b.N})
		},
	}})
	el, cpu := time.Since(start), cpuTime()-cpu0
	if !ok || err != nil {
		b.Fatalf("exploration failed: %v", err)
	}
	b.ReportMetric(float64(rep.Runs)/el.Minutes(), "runs/min")
	// CPU per run does not depend on what else the machine runs: two
	// cores' worth of it is the rate on two idle cores.
	b.ReportMetric(cpu.Seconds()*1000/float64(rep.Runs), "cpu-ms/run")
	b.ReportMetric(2*time.Minute.Seconds()/(cpu.Seconds()/float64(rep.Runs)), "runs/min-on-2-idle-cores")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// exploreGCPercent is the GOGC locksim explore runs with.
const exploreGCPercent = 400
