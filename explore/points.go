package explore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// Points are the points schedules of cfg's design trigger at: the client
// loop's, and those of the design's internal points (lock.Points) that it
// reaches. Which internal points a design reaches is found by one short
// fault-free run in virtual time with a 1 ms pause of client 0 armed at
// each of them: those that fired are reached. That works for designs
// registered by their authors as well as for the built-in ones. cfg is as
// Config.Resolve returns it.
func Points(ctx context.Context, cfg Config) ([]string, error) {
	var internal []string
	for _, p := range lock.Points {
		if !slices.Contains(LoopPoints, string(p)) {
			internal = append(internal, string(p))
		}
	}
	s := &scenarios.Scenario{
		Name:      "explore-points-" + cfg.Algorithm,
		Algorithm: scenarios.AlgorithmList{cfg.Algorithm},
		Options:   scenarios.Options{TTL: dur(cfg.TTL)},
		Clients:   ptr(1),
		Nodes:     ptr(cfg.Nodes),
		Duration:  dur(max(4*cfg.TTL, time.Second)),
		Hold:      dur(cfg.Hold),
	}
	if info, err := lock.Lookup(cfg.Algorithm); err == nil && info.NeedsReplica {
		s.Replicas = ptr(1)
	}
	for _, p := range internal {
		s.Faults = append(s.Faults, scenarios.FaultSpec{
			Kind: vocab.KindPauseClient, Client: ptr(0),
			When: &scenarios.PointSpec{Point: p}, For: dur(time.Millisecond),
			Optional: ptr(true),
		})
	}
	o, err := runOnce(ctx, s, cfg.Algorithm, 1)
	if err != nil {
		return nil, fmt.Errorf("find the points %s reaches: %w", cfg.Algorithm, err)
	}
	out := slices.Clone(LoopPoints)
	for i, p := range internal {
		if !slices.Contains(o.res.Unfired, i+1) {
			out = append(out, p)
		}
	}
	return out, nil
}
