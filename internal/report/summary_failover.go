package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
)

// failoverSection is summary.md's "Failover" section: who failed over (the
// sentinels, the harness or the emulation) and, under Sentinel, what each
// failover took, measured from the fault that brought the master down
// (checker.Failovers, the reading the timeline draws).
func failoverSection(cfg history.Setup, h history.History) string {
	if cfg.Replicas < 1 {
		return ""
	}
	var f history.FailoverSetup
	if cfg.Failover != nil {
		f = *cfg.Failover
	}
	var b strings.Builder
	b.WriteString("\n## Failover\n\n")
	if cfg.Backend == "redis-cluster" {
		b.WriteString("By the Redis Cluster itself: a master's replica is elected once the others mark the master failed (cluster-node-timeout), or on CLUSTER FAILOVER; the clients follow the slot's new owner through MOVED.\n\n")
		clusterElections(&b, h)
		return b.String()
	}
	switch f.Mode {
	case history.FailoverSentinel:
		fmt.Fprintf(&b, "By %s Sentinel: %d %s processes, quorum %d, down_after %v, failover_timeout %v, parallel_syncs %d; nothing promoted by hand, and the clients follow the master through Sentinel.\n\n",
			f.Product, f.Sentinels, f.SentinelBinary, f.Quorum, f.DownAfter, f.FailoverTimeout, f.ParallelSyncs)
	case history.FailoverDirect:
		b.WriteString("Direct: the harness kills the master and promotes the replica at once (REPLICAOF NO ONE).\n")
		return b.String()
	default:
		b.WriteString("Emulated on miniredis: the node loses what its replica would not have had.\n")
		return b.String()
	}
	fos := checker.Failovers(h)
	if len(fos) == 0 {
		b.WriteString("- no sentinel called a master down during the run\n")
		return b.String()
	}
	for _, fo := range fos {
		what := "the first +sdown (no fault brought it down)"
		if fo.HasFault() {
			what = fmt.Sprintf("fault %d (%s)", fo.Fault.FaultID, fo.Fault.Fault)
		}
		from := fo.From
		fmt.Fprintf(&b, "- `%s`: master down at %s by %s; +sdown after %s", fo.Master, fmtMS(from), what, fmtMS(fo.Down-from))
		if fo.ODown > 0 {
			fmt.Fprintf(&b, ", +odown after %s", fmtMS(fo.ODown-from))
		}
		switch fo.EndedBy {
		case "switch-master":
			fmt.Fprintf(&b, ", **+switch-master after %s** (to %s)", fmtMS(fo.Switch-from), fo.NewMaster)
			if at, ok := firstAcquireAfter(h, fo.Switch); ok {
				fmt.Fprintf(&b, "; first successful acquire %s after the master went down (%s after the switch)", fmtMS(at-from), fmtMS(at-fo.Switch))
			} else {
				b.WriteString("; no acquire succeeded after it")
			}
		case "recovered":
			fmt.Fprintf(&b, "; seen up again after %s, no promotion", fmtMS(fo.End-from))
		default:
			b.WriteString("; still no promotion when the run ended")
		}
		if fo.Tries > 1 || fo.Aborts > 0 {
			fmt.Fprintf(&b, " (%d election(s) started, %d aborted)", fo.Tries, fo.Aborts)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// firstAcquireAfter is when the first acquire that returned ok after t did.
func firstAcquireAfter(h history.History, t time.Duration) (time.Duration, bool) {
	var first time.Duration
	found := false
	for _, op := range h.Ops {
		if op.Kind == history.KindAcquire && op.Outcome == history.OK && op.Return >= t && (!found || op.Return < first) {
			first, found = op.Return, true
		}
	}
	return first, found
}

// clusterElections lists what the faults measured of the Redis Cluster,
// one line each: a master cut off from the majority refusing writes
// (history.Target.Refused), and an election (history.Target.Election).
func clusterElections(b *strings.Builder, h history.History) {
	n := 0
	for _, op := range h.Ops {
		t := op.Target
		if op.Kind != history.KindFault || t == nil {
			continue
		}
		if t.Refused > 0 && len(t.Nodes) > 0 {
			fmt.Fprintf(b, "- fault %d (`%s`) at %s: slot %d's master, node %d, cut off from the majority, **refused writes (CLUSTERDOWN) after %s**\n",
				op.FaultID, op.Fault, fmtMS(op.Call), t.Slot, t.Nodes[0], fmtMS(t.Refused))
		}
		if t.Election <= 0 || len(t.Nodes) < 2 {
			continue
		}
		n++
		fmt.Fprintf(b, "- fault %d (`%s`) at %s: slot %d's master, node %d, replaced by node %d, **elected after %s**\n",
			op.FaultID, op.Fault, fmtMS(op.Call), t.Slot, t.Nodes[0], t.Nodes[1], fmtMS(t.Election))
	}
	if n == 0 {
		b.WriteString("- no election during the run\n")
	}
}
