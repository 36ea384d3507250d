package checker

import (
	"testing"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// Each episode is attributed the fault that brought its master down
// (started after the previous episode ended, before the first +sdown), and
// an episode still going at the history's end lasts to it.
func TestFailovers(t *testing.T) {
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	sent := func(at float64, src, event, detail string) history.Op {
		return history.Op{Kind: history.KindSentinel, Client: history.NoClient, Call: ms(at), Return: ms(at), Outcome: history.OK,
			Event: event, Detail: detail, Source: src}
	}
	fault := func(id int, kind string, node int, from, to float64) history.Op {
		return history.Op{Kind: history.KindFault, Client: history.NoClient, Call: ms(from), Return: ms(to), Outcome: history.OK,
			FaultID: id, Fault: kind, Target: &history.Target{Kind: vocab.Kind(kind), Nodes: []int{node}}}
	}
	h := history.History{Ops: []history.Op{
		fault(1, "pause-client", 0, 1, 2), // not a fault on a node
		fault(2, "failover", 0, 10, 9000),
		sent(1500, "s0", "+sdown", "master locksim-n0 127.0.0.1 7000"),
		sent(1600, "s1", "+odown", "master locksim-n0 127.0.0.1 7000 #quorum 2/2"),
		sent(2800, "s1", "+switch-master", "locksim-n0 127.0.0.1 7000 127.0.0.1 7001"),
		// the promoted master killed in turn, still down at the end
		fault(3, "kill-node", 1, 4000, 9000),
		sent(5500, "s0", "+sdown", "master locksim-n1 127.0.0.1 7002"),
		// node 0's new master called down by one sentinel, no fault
		// since its last episode (fault 2 started before that)
		sent(7000, "s2", "+sdown", "master locksim-n0 127.0.0.1 7001"),
		sent(7100, "s2", "-sdown", "master locksim-n0 127.0.0.1 7001"),
		{Kind: history.KindProbe, Client: history.NoClient, Call: ms(9500), Return: ms(9600), Outcome: history.OK},
	}}
	got := Failovers(h)
	if len(got) != 3 {
		t.Fatalf("got %d failovers, want 3: %+v", len(got), got)
	}
	want := []struct {
		node, faultID  int
		from, until    time.Duration
		endedBy        string
		hasFault       bool
		down, odown, s time.Duration
	}{
		{0, 2, ms(10), ms(2800), "switch-master", true, ms(1500), ms(1600), ms(2800)},
		{1, 3, ms(4000), ms(9600), "", true, ms(5500), 0, 0},
		{0, 0, ms(7000), ms(7100), "recovered", false, ms(7000), 0, 0},
	}
	for i, w := range want {
		g := got[i]
		if g.Node != w.node || g.Fault.FaultID != w.faultID || g.From != w.from || g.Until != w.until || g.EndedBy != w.endedBy ||
			g.HasFault() != w.hasFault || g.Down != w.down || g.ODown != w.odown || g.Switch != w.s {
			t.Errorf("failover %d: got %+v, want %+v", i, g, w)
		}
	}
	// the states the bench shades: +sdown to +odown, then to the switch
	st := SentinelStates(h)
	if len(st) != 4 || st[0].Start != ms(1500) || st[0].End != ms(1600) || st[1].Start != ms(1600) || st[1].End != ms(2800) ||
		st[2].Node != 1 || st[2].End != ms(9600) || st[3].Node != 0 || st[3].End != ms(7100) {
		t.Errorf("SentinelStates: %+v", st)
	}
}
