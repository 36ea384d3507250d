package sim

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/lock"
)

// clusterRefusal is why a design cannot run on a Redis Cluster, nil when
// it can. Redlock's N nodes are independent masters, each its own lock
// service; a cluster's masters are one service that shards keys, and one
// lock key lives on one of them, so Redlock over a cluster's masters is
// not Redlock (Redlock across N clusters would need N clusters). A
// process design whose adapter takes a cluster (Info.Cluster) is given
// the cluster as one client, as its library's cluster client sees it:
// node-redlock then runs Redlock with that one client, as its README
// allows; another process design's child takes one address per node.
func clusterRefusal(b Backend, info lock.Info) error {
	if b != BackendRedisCluster {
		return nil
	}
	switch {
	case info.Process && !info.Cluster:
		return fmt.Errorf("algorithm %s: its adapter takes one address per node; on %s it would need the cluster's seed addresses and to follow redirects", info.Name, b)
	case info.MultiNode && !info.Process:
		return fmt.Errorf("algorithm %s: on %s one lock key lives on one master: Redlock needs independent masters, not the masters of one cluster", info.Name, b)
	}
	return nil
}

// crossSlot reports whether err is a Redis Cluster's CROSSSLOT refusal: a
// command or script whose keys hash to different slots, refused before it
// ran.
func crossSlot(err error) bool {
	return err != nil && strings.Contains(err.Error(), "CROSSSLOT")
}

// crossSlotNotes is the run's finding when the cluster refused the
// design's commands with CROSSSLOT: the design's keys are not on one
// slot, so on a cluster it cannot take the lock at all.
func crossSlotNotes(algorithm string, h History) []string {
	for _, op := range h.Ops {
		if strings.Contains(op.Err, "CROSSSLOT") {
			return []string{fmt.Sprintf("%s: CROSSSLOT on a cluster: its keys are on different slots", algorithm)}
		}
	}
	return nil
}
