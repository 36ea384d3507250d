package faults

import (
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// Each fault says whom it hit (sim.Targeter), so that the timeline draws it
// on the rows it hit rather than across the chart.
var (
	_ sim.Targeter = PauseClient{}
	_ sim.Targeter = CrashClient{}
	_ sim.Targeter = ClockSkewClient{}
	_ sim.Targeter = ClockJumpClient{}
	_ sim.Targeter = ClockJumpNode{}
	_ sim.Targeter = ClockRateNode{}
	_ sim.Targeter = PauseNode{}
	_ sim.Targeter = KillNode{}
	_ sim.Targeter = Failover{}
	_ sim.Targeter = Delay{}
	_ sim.Targeter = Partition{}
	_ sim.Targeter = Drop{}

	_ sim.WorldTargeter = Failover{}
)

func (f PauseClient) Target() history.Target {
	return history.Target{Kind: vocab.KindPauseClient, Clients: []int{f.Client}}
}

func (f CrashClient) Target() history.Target {
	return history.Target{Kind: vocab.KindCrashClient, Clients: []int{f.Client}}
}

func (f ClockSkewClient) Target() history.Target {
	return history.Target{Kind: vocab.KindClockSkewClient, Clients: []int{f.Client}, ClockJump: f.Offset, ClockRate: f.Rate}
}

func (f ClockJumpClient) Target() history.Target {
	return history.Target{Kind: vocab.KindClockJumpClient, Clients: []int{f.Client}, ClockJump: f.By}
}

func (f ClockJumpNode) Target() history.Target {
	return history.Target{Kind: vocab.KindClockJumpNode, Nodes: []int{f.Node}, ClockJump: f.By}
}

func (f ClockRateNode) Target() history.Target {
	return history.Target{Kind: vocab.KindClockRateNode, Nodes: []int{f.Node}, ClockRate: f.Rate}
}

func (f PauseNode) Target() history.Target {
	return history.Target{Kind: vocab.KindPauseNode, Nodes: []int{f.Node}}
}

func (f KillNode) Target() history.Target {
	return history.Target{Kind: vocab.KindKillNode, Nodes: []int{f.Node}, Down: f.RestartAfter, KeepData: f.KeepData}
}

func (f Failover) Target() history.Target {
	return history.Target{Kind: vocab.KindFailover, Nodes: []int{f.Node}}
}

// TargetIn says, besides whom it hits, whether Sentinel promotes.
func (f Failover) TargetIn(w *sim.World) history.Target {
	t := f.Target()
	t.Sentinel = w.Cluster().Config().Sentinel()
	return t
}

func (f Delay) Target() history.Target { return f.Links.target(vocab.KindDelay) }

func (f Partition) Target() history.Target { return f.Links.target(vocab.KindPartition) }

func (f Drop) Target() history.Target { return f.Links.target(vocab.KindDrop) }

func (l Links) target(kind vocab.Kind) history.Target {
	t := history.Target{Kind: kind, Link: true, Clients: l.Clients, Nodes: l.Nodes}
	for _, g := range l.Groups {
		t.Groups = append(t.Groups, append([]string(nil), g...))
	}
	return t
}
