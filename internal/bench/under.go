package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/sim"
)

// UnderReport is a run of the load under a scenario's faults: one run.Play
// per design.
type UnderReport struct {
	Scenario string     `json:"scenario"`
	Runs     []UnderRun `json:"runs"`
}

// UnderRun is one design's run under the scenario.
type UnderRun struct {
	Algorithm string  `json:"algorithm"`
	Backend   string  `json:"backend"`
	Nodes     int     `json:"nodes"`
	Clients   int     `json:"clients"`
	DurationS float64 `json:"duration_s"`
	HoldMs    float64 `json:"hold_ms"`
	RetryMs   float64 `json:"retry_interval_ms"`
	// Attempts counts single acquire attempts by outcome.
	Attempts struct {
		OK      int `json:"ok"`
		Fail    int `json:"fail"`
		Unknown int `json:"unknown"`
	} `json:"attempts"`
	Faults []FaultWindow `json:"faults"`
	// Sentinel are the windows of Sentinel's failovers (redis-server,
	// failover mode sentinel): "node i: master down (Sentinel)" from the
	// first +sdown to the quorum's +odown, then "node i: failover in
	// progress" to the +switch-master, as the run's timeline shades them.
	Sentinel   []FaultWindow `json:"sentinel,omitempty"`
	Notes      []string      `json:"notes,omitempty"`
	Incomplete bool          `json:"incomplete,omitempty"`

	points  []timelinePoint
	history history.History
}

// FaultWindow is a fault window of the history (checker.View's), as
// bench.json gives it: when it started and when it was healed, in seconds
// since the run's start.
type FaultWindow struct {
	Fault  string  `json:"fault"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// timelinePoint is one acquire on the latency-over-time chart.
type timelinePoint struct {
	At      time.Duration // when the client started waiting (true time since the run's start)
	Latency time.Duration
	Outcome history.Outcome // ok: the lease came; fail: this attempt was refused; unknown: its outcome is unknown
}

func runUnder(ctx context.Context, cfg Config) (*Report, error) {
	rep := &Report{Machine: ThisMachine(), Started: time.Now().UTC(), Under: &UnderReport{Scenario: cfg.UnderName}}
	backends := map[string]bool{}
	for i, sc := range cfg.Under {
		spec, err := sc.Resolve()
		if err != nil {
			return nil, fmt.Errorf("%w: under %s: %w: %w", ErrConfig, cfg.UnderName, sim.ErrConfig, err)
		}
		res, err := run.Play(ctx, spec)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, sim.ErrConfig):
			return nil, fmt.Errorf("%w: under %s: %w", ErrConfig, cfg.UnderName, err)
		case err != nil:
			return nil, fmt.Errorf("under %s, %s: %w", cfg.UnderName, sc.Algorithm, err)
		}
		ur, result := fromHistory(res, cfg.UnderName)
		rep.Under.Runs = append(rep.Under.Runs, ur)
		rep.Results = append(rep.Results, result)
		backends[ur.Backend] = true
		if cfg.Progress != nil {
			cfg.Progress(Progress{Done: i + 1, Total: len(cfg.Under),
				Step: fmt.Sprintf("%s under %s", sc.Algorithm, cfg.UnderName), Result: &rep.Results[len(rep.Results)-1]})
		}
	}
	for b := range backends {
		if b == string(sim.BackendMiniredis) {
			rep.Notes = append(rep.Notes, "backend miniredis: "+MiniredisWarning)
		}
	}
	rep.Backend = joinKeys(backends)
	rep.Settings = Settings{Seed: cfg.Seed}
	for _, u := range cfg.Under {
		rep.Settings.Algorithms = append(rep.Settings.Algorithms, u.Algorithm)
	}
	rep.WallS = time.Since(rep.Started).Seconds()
	return rep, nil
}

func joinKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// fromHistory rebuilds the bench's figures from a run's history. Per
// client, a wait starts at the first attempt after the previous cycle and
// ends with the attempt that got the lease (acquire latency); the cycle
// ends with the release's reply. An attempt with an unknown outcome ends
// the cycle (sim's client gives up on it), as does the end of the run.
func fromHistory(res *sim.Result, scenario string) (UnderRun, Result) {
	cfg := res.Config
	run := UnderRun{
		Algorithm: cfg.Algorithm, Backend: string(cfg.Cluster.Backend), Nodes: cfg.Cluster.Nodes,
		Clients: cfg.Clients, DurationS: cfg.Duration.Seconds(), HoldMs: ms(cfg.Hold),
		RetryMs: ms(cfg.Options.Retry.Interval), Notes: res.Notes, Incomplete: res.Incomplete,
		history: res.History,
	}
	// the fault windows as every reader of a history sees them
	for _, f := range checker.Read(res.History).Faults {
		run.Faults = append(run.Faults, FaultWindow{Fault: f.Desc, StartS: f.Start.Seconds(), EndS: f.End.Seconds()})
	}
	for _, st := range checker.SentinelStates(res.History) {
		run.Sentinel = append(run.Sentinel, FaultWindow{Fault: fmt.Sprintf("node %d: %s", st.Node, st.State),
			StartS: st.Start.Seconds(), EndS: st.End.Seconds()})
	}
	ops := slices.Clone(res.History.Ops)
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Call, b.Call) })
	acc := newAccumulator()
	waitStart := map[int]time.Duration{}
	held := map[int]time.Duration{}
	for _, op := range ops {
		switch op.Kind {
		case history.KindAcquire:
			start, waiting := waitStart[op.Client]
			if !waiting {
				start = op.Call
				waitStart[op.Client] = start
			}
			acc.attempts++
			switch op.Outcome {
			case history.OK:
				run.Attempts.OK++
				record(acc.acquire, op.Return-start)
				run.points = append(run.points, timelinePoint{At: start, Latency: op.Return - start, Outcome: history.OK})
				held[op.Client] = start
				delete(waitStart, op.Client)
			case history.Fail:
				run.Attempts.Fail++
				acc.refused++
				run.points = append(run.points, timelinePoint{At: op.Call, Latency: op.Return - op.Call, Outcome: history.Fail})
			default:
				run.Attempts.Unknown++
				acc.errs++
				if acc.firstErr == nil {
					acc.firstErr = errors.New(op.Err)
				}
				run.points = append(run.points, timelinePoint{At: op.Call, Latency: op.Return - op.Call, Outcome: history.Unknown})
				delete(waitStart, op.Client)
			}
		case history.KindRelease:
			start, ok := held[op.Client]
			if !ok {
				continue
			}
			delete(held, op.Client)
			if op.Outcome != history.OK {
				acc.errs++
				continue
			}
			acc.cycles++
			record(acc.cycle, op.Return-start)
		}
	}
	acc.measured = cfg.Duration
	acc.rounds = []float64{float64(acc.cycles) / cfg.Duration.Seconds()}
	r := acc.result(cfg.Algorithm, cell{nodes: cfg.Cluster.Nodes, clients: cfg.Clients})
	r.Scenario = scenario
	return run, r
}
