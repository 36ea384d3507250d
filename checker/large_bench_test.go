package checker

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/locksim/locksim/checker/histgen"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// largeOps and largeClients are the size `locksim check` is held to: a
// history of a long run at the client bound, read back from history.jsonl
// and checked.
const (
	largeOps     = 1_400_000
	largeClients = 1000
)

// BenchmarkCheckLargeHistory reads a 1.4M-operation history.jsonl and
// checks it, as `locksim check` does: 1000 contending clients, and a
// million clients taking turns on one key (most of them appear once or
// twice), whose one long partition porcupine alone cannot decide in time.
// Beside the time and allocations it reports, per operation of the
// history, the bytes the decoded history holds (held-B/histop) and the
// bytes reading and checking allocate (alloc-B/histop), and the process's
// CPU time (user and system) per read and check (cpu-s/op), which a
// loaded machine stretches less than the wall time.
func BenchmarkCheckLargeHistory(b *testing.B) {
	for _, c := range []struct {
		name string
		h    func() history.History
	}{
		{"1000-clients", func() history.History { return realisticHistory(1, largeOps, largeClients, -1) }},
		{"1M-clients", func() history.History { return histgen.ManyClients(1, largeOps, 1_000_000, -1) }},
	} {
		b.Run(c.name, func(b *testing.B) { benchmarkCheckJSONL(b, c.h()) })
	}
}

func benchmarkCheckJSONL(b *testing.B, hist history.History) {
	var buf bytes.Buffer
	if err := hist.WriteJSONL(&buf); err != nil {
		b.Fatal(err)
	}
	hist = history.History{}
	data := buf.Bytes()
	var before, held, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h, err := history.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&held)
		b.StartTimer()
		r := Check(h, Config{})
		if r.Verdict != vocab.Safe {
			b.Fatalf("verdict %s: %s", r.Verdict, r.Reason)
		}
		runtime.KeepAlive(h)
	}
	b.StopTimer()
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(held.HeapAlloc-before.HeapAlloc)/largeOps, "held-B/histop")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/largeOps, "alloc-B/histop")
}
