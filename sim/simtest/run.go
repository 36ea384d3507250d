package simtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vtime"
)

// Clock says which clock a test run keeps.
type Clock int

const (
	// Virtual plays a miniredis run in virtual time (package vtime): the
	// nodes and proxies in memory, every wait costing no real time, so
	// that a loaded machine or the race detector cannot stretch the run's
	// timing. redis-server runs in real time whatever is asked.
	Virtual Clock = iota
	// WallClock keeps real time: on miniredis, real sockets and
	// toxiproxy's proxies, for the tests whose point is that path.
	WallClock
)

// Run plays cfg for a test: it skips (or fails) a redis-server run without
// redis-server, puts the cluster's files in a test temp dir, fails the test
// as hung when a real-time run never returns (a slow one is no failure; a
// bubble in which every goroutine is blocked for good fails by itself),
// logs the run's notes, and logs its history if the test fails.
func Run(t *testing.T, cfg sim.Config, clock Clock) *sim.Result {
	t.Helper()
	requireServer(t, cfg.Cluster)
	if cfg.Cluster.Dir == "" {
		cfg.Cluster.Dir = t.TempDir()
	}
	cfg.VirtualTime = clock == Virtual && (cfg.Cluster.Backend == "" || cfg.Cluster.Backend == sim.BackendMiniredis)
	spec, err := cfg.Resolve()
	require.NoError(t, err)
	var res *sim.Result
	if cfg.VirtualTime {
		res, err = sim.Run(vtime.NewContext(context.Background(), vtime.ForTest(t)), spec)
	} else {
		res, err = runGuarded(t, spec)
	}
	require.NoError(t, err)
	for _, n := range res.Notes {
		t.Log("note:", n)
	}
	t.Cleanup(func() {
		if t.Failed() {
			var b strings.Builder
			_ = res.History.WriteJSONL(&b)
			t.Logf("history of the failed run:\n%s", b.String())
		}
	})
	return res
}

func runGuarded(t *testing.T, spec sim.Spec) (*sim.Result, error) {
	t.Helper()
	type ret struct {
		res *sim.Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		res, err := sim.Run(context.Background(), spec)
		done <- ret{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(HangGuard):
		t.Fatalf("hung: sim.Run (duration %v) has not returned after %v", spec.Config().Duration, HangGuard)
		return nil, nil
	}
}
