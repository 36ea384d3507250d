package bench

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// BenchmarkCycle is one uncontended lock cycle (acquire, release) of raw
// and of the designs it is the limit of, on redis-server, one client:
// raw and setpx at one node, raw's fan-out, redlock and redsync at five.
// Run it with -benchmem and -cpuprofile/-memprofile to see what a design
// adds over raw (go test -bench Cycle -benchmem -run '^$' ./bench/).
// It needs redis-server and skips without it.
func BenchmarkCycle(b *testing.B) {
	cluster, _ := simtest.Cluster(b, sim.BackendRedis, 5)
	ctx := context.Background()
	ttl := 10 * time.Second
	conns := func(n int) []redis.UniversalClient {
		cs := make([]redis.UniversalClient, n)
		for i := range cs {
			cs[i] = cluster.NewClient(i)
			b.Cleanup(func() { _ = cs[i].Close() })
		}
		return cs
	}
	for _, n := range []int{1, 5} {
		b.Run("raw/"+nodesText(n), func(b *testing.B) {
			cs := conns(n)
			for _, c := range cs {
				if err := compareAndDelete.Load(ctx, c).Err(); err != nil {
					b.Fatal(err)
				}
			}
			w := newRawWorker(cs, "cycle:raw", ttl, lock.RetryPolicy{}, 0, rand.New(rand.NewPCG(1, 2)))
			b.ReportAllocs()
			for b.Loop() {
				token := lock.RandomToken()
				if yes, err := w.round(ctx, true, token); err != nil || yes < w.quorum() {
					b.Fatalf("acquire: %d nodes, %v", yes, err)
				}
				if yes, err := w.round(ctx, false, token); err != nil || yes < w.quorum() {
					b.Fatalf("release: %d nodes, %v", yes, err)
				}
			}
		})
	}
	for _, d := range []struct {
		algo  string
		nodes int
	}{{"setpx", 1}, {"redislock", 1}, {"redlock", 5}, {"redsync", 5}} {
		b.Run(d.algo+"/"+nodesText(d.nodes), func(b *testing.B) {
			var nodes []redis.UniversalClient
			for _, c := range conns(d.nodes) {
				nodes = append(nodes, c)
			}
			l, err := lock.New(d.algo, nodes, lock.Options{TTL: ttl})
			if err != nil {
				b.Fatal(err)
			}
			key := "cycle:" + d.algo
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
}
