package vtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/locksim/locksim/vtime"
)

func TestRunAdvancesVirtualTime(t *testing.T) {
	var slept time.Duration
	err := vtime.ForTest(t).Run(context.Background(), "sleep", func(ctx context.Context) {
		start := time.Now()
		time.Sleep(11 * time.Second)
		slept = time.Since(start)
	})
	if err != nil {
		t.Fatal(err)
	}
	// In a bubble a sleep takes exactly its length of the bubble's clock.
	if slept != 11*time.Second {
		t.Fatalf("slept %v of virtual time, want exactly 11s", slept)
	}
}

func TestRunSeesTheCallersCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var err error
	runErr := vtime.ForTest(t).Run(ctx, "cancelled", func(ctx context.Context) {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(time.Hour):
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("inner context: %v, want cancelled before the hour passed", err)
	}
}

func TestZeroHostRefuses(t *testing.T) {
	err := vtime.Host{}.Run(context.Background(), "x", func(context.Context) {})
	if !errors.Is(err, vtime.ErrNoHost) {
		t.Fatalf("zero host: %v, want ErrNoHost", err)
	}
	if vtime.FromContext(context.Background()).Valid() {
		t.Fatal("a context without a host gave a valid one")
	}
	if !vtime.FromContext(vtime.NewContext(context.Background(), vtime.ForTest(t))).Valid() {
		t.Fatal("NewContext's host was lost")
	}
}
