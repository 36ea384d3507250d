package lock_test

import (
	"context"
	"testing"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// benchNodes is the cluster size of multi-node designs here; single-node
// designs use the first node only.
const benchNodes = 5

// BenchmarkAcquireRelease is one uncontended Acquire and Release per
// iteration, for every design on every backend (go test -bench
// AcquireRelease ./lock/). The redis sub-benchmarks need redis-server and
// skip without it (fail with LOCKSIM_REQUIRE_REDIS=1). lockbench measures
// the same under concurrency and contention, beside the raw limit.
func BenchmarkAcquireRelease(b *testing.B) {
	simtest.ForEachBackend(b, func(b *testing.B, backend sim.Backend) {
		_, conns := simtest.Cluster(b, backend, benchNodes)
		for _, info := range lock.Algorithms() {
			b.Run(info.Name, func(b *testing.B) {
				nodes := conns[:1]
				if info.MultiNode {
					nodes = conns
				}
				l, err := lock.New(info.Name, nodes, lock.Options{})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				key := "bench:" + info.Name
				b.ReportAllocs()
				for b.Loop() {
					lease, err := l.Acquire(ctx, key)
					if err != nil {
						b.Fatalf("acquire: %v", err)
					}
					if err := l.Release(ctx, lease); err != nil {
						b.Fatalf("release: %v", err)
					}
				}
			})
		}
	})
}
