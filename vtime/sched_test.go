package vtime_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/locksim/locksim/vtime"
)

// order runs eight goroutines that wake at the same virtual instant and
// append their number once the scheduler lets them go; it returns the
// order they went in.
func order(t *testing.T, seed uint64) []int {
	var got []int
	err := vtime.ForTest(t).Run(context.Background(), "order", func(ctx context.Context) {
		s := vtime.StartScheduler(seed)
		defer s.Stop()
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				if err := s.Sleep(ctx, fmt.Sprintf("g%d", i), time.Second); err != nil {
					t.Error(err)
				}
				mu.Lock()
				got = append(got, i)
				mu.Unlock()
			})
		}
		wg.Wait()
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestSchedulerOrderFollowsTheSeed(t *testing.T) {
	first := order(t, 7)
	for range 5 {
		if again := order(t, 7); !slices.Equal(again, first) {
			t.Fatalf("seed 7 gave %v, then %v", first, again)
		}
	}
	differs := false
	for seed := uint64(8); seed < 16 && !differs; seed++ {
		differs = !slices.Equal(order(t, seed), first)
	}
	if !differs {
		t.Fatalf("eight other seeds all gave seed 7's order %v: the seed does not choose", first)
	}
}

func TestSchedulerSleepEndsWithItsContext(t *testing.T) {
	err := vtime.ForTest(t).Run(context.Background(), "cancel", func(ctx context.Context) {
		s := vtime.StartScheduler(1)
		defer s.Stop()
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		start := time.Now()
		if err := s.Sleep(cctx, "long", time.Hour); err != context.DeadlineExceeded {
			t.Errorf("Sleep = %v, want the context's deadline", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("Sleep returned after %v, want 1s", d)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNilSchedulerLetsEverythingGo(t *testing.T) {
	var s *vtime.Scheduler
	ran := false
	s.Post("k", func() { ran = true })
	s.Gate("k")
	if !ran {
		t.Fatal("a nil scheduler held an event")
	}
	if err := s.Sleep(context.Background(), "k", time.Millisecond); err != nil {
		t.Fatal(err)
	}
}
