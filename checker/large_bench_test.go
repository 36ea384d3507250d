package checker

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

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
		{"1M-clients", func() history.History { return manyClientsHistory(1, largeOps, 1_000_000) }},
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

// manyClientsHistory is a history of n operations in which clients come
// and go: each round one of clients wins the lock (acquire, enter, exit,
// release) while three others drawn at random fail an attempt, so that a
// client count near n/6 makes most clients appear once or twice.
func manyClientsHistory(seed uint64, n, clients int) history.History {
	rng := rand.New(rand.NewPCG(seed, 11))
	ops := make([]history.Op, 0, n+8)
	t := time.Duration(0)
	var seq int64
	for round := 0; len(ops) < n; round++ {
		w := rng.IntN(clients)
		token := fmt.Sprintf("c%d-%d", w, round)
		for range 3 {
			c := rng.IntN(clients)
			call := t + time.Duration(rng.IntN(5))*ms
			ops = append(ops, history.Op{Kind: history.KindAcquire, Client: c, Key: "lock", Call: call, Return: call + ms,
				Outcome: history.Fail, Reason: history.ReasonRefused})
		}
		ops = append(ops, history.Op{Kind: history.KindAcquire, Client: w, Key: "lock", Call: t, Return: t + ms,
			Outcome: history.OK, Token: token, Deadline: t + 501*ms})
		for _, k := range []history.Kind{history.KindEnter, history.KindExit} {
			seq++
			at := t + 2*ms
			if k == history.KindExit {
				at = t + 6*ms
			}
			ops = append(ops, history.Op{Kind: k, Client: w, Key: "lock", Call: at - ms/4, Return: at + ms/4,
				Outcome: history.OK, Token: token, At: at, Seq: seq})
		}
		ops = append(ops, history.Op{Kind: history.KindRelease, Client: w, Key: "lock", Call: t + 7*ms, Return: t + 8*ms,
			Outcome: history.OK, Token: token})
		t += 10 * ms
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	return history.History{Ops: ops[:n]}
}
