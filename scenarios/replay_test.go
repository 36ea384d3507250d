package scenarios_test

import (
	"context"
	"testing"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
	"github.com/locksim/locksim/vtime"
)

// replayScenarios are the catalogue scenarios TestReplayIsExact reruns:
// one every design runs (client pauses at every point), Redlock's
// partition and node clock jump (concurrent fan-out to five nodes, dropped
// chunks, read deadlines), a failover on emulated replication, a held
// message to the resource, lost replies with a paused node, and WAIT on
// an emulated replica across a failover (setpx-wait's own).
var replayScenarios = []string{
	"control-short-pauses",
	"redlock-node-clock-jump",
	"failover-async-replication",
	"delayed-write",
	"redlock-lost-replies",
	"failover-wait-still-loses",
}

// replayRuns is how many times each pair runs.
const replayRuns = 3

// TestReplayIsExact runs every in-process design through a sample of the
// catalogue several times in virtual time and wants the same
// history.jsonl, byte for byte, from every run of one seed: what happens
// at one virtual instant goes in the order the run's scheduler draws from
// the seed (vtime.Scheduler), not the Go scheduler's.
func TestReplayIsExact(t *testing.T) {
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	pairs := 0
	for _, name := range replayScenarios {
		s, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range lock.Algorithms() {
			if info.Process {
				continue
			}
			if e, ok := s.Expect(info.Name); ok && e.Verdict == vocab.Skip {
				continue
			}
			cfg, err := s.RunConfig(info.Name, scenarios.Servers{})
			if err != nil {
				t.Fatalf("%s with %s: %v", name, info.Name, err)
			}
			cfg.VirtualTime = true
			spec, err := cfg.Resolve()
			if err != nil {
				t.Fatalf("%s with %s: %v", name, info.Name, err)
			}
			r, err := sim.Replay(ctx, spec, replayRuns)
			if err != nil {
				t.Fatalf("%s with %s: %v", name, info.Name, err)
			}
			if r.First != nil {
				t.Errorf("%s with %s: %d distinct histories in %d runs; %v", name, info.Name, r.Distinct, r.Runs, r.First)
			}
			pairs++
		}
	}
	t.Logf("%d pairs, %d runs each, identical", pairs, replayRuns)
}
