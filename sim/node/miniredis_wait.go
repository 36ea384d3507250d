package node

import (
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/internal/miniredis/server"
	"github.com/locksim/locksim/vtime"
)

// WAIT on an emulated replica. miniredis has no replication, and its own
// WAIT always answers 0. In a cluster with replicas (whose failover is
// emulated, see cluster_failover.go) the node answers WAIT numreplicas
// timeout as a master with one replica behind the link r<i> <-> n<i>
// would: 1 as soon as that link has delivered every write made before the
// WAIT (a delay of d answers after d, a cut never), 0 at the timeout.

// waitPoll is how often an emulated WAIT looks at the replication link.
const waitPoll = 5 * time.Millisecond

// maxWait bounds an emulated WAIT whose timeout is 0 (Redis: forever).
const maxWait = 10 * time.Second

// replicatedUpTo is set on nodes whose replication is emulated: the instant
// up to which their writes have reached the replica as of now.
type replicatedUpToFunc func(now time.Time) time.Time

// emulateWait answers a WAIT command; false when it is not one this node
// emulates (miniredis then answers, and checks the arguments).
func (n *miniNode) emulateWait(p *server.Peer, cmd string, args []string) bool {
	if cmd != "WAIT" || n.replicated == nil || len(args) != 2 {
		return false
	}
	want, err1 := strconv.Atoi(args[0])
	ms, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || want < 0 || ms < 0 {
		return false
	}
	issued := time.Now()
	timeout := time.Duration(ms) * time.Millisecond
	if ms == 0 {
		timeout = maxWait
	}
	deadline := issued.Add(timeout)
	acked := 0
	dead := n.gate.died()
	var sched *vtime.Scheduler
	if n.mem != nil {
		sched = n.mem.Scheduler()
	}
	waitKey := fmt.Sprintf("wait/%d#%d", n.idx, n.waits.Add(1))
	for poll := 1; want > 0; poll++ {
		if !n.replicated(time.Now()).Before(issued) {
			acked = 1
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		select {
		case <-time.After(min(waitPoll, left)):
			// the next look in the run's order (vtime.Scheduler)
			sched.Gate(waitKey + "/" + strconv.Itoa(poll))
		case <-dead:
			return true // killed while waiting: the answer is never sent
		}
	}
	p.WriteInt(acked)
	return true
}
