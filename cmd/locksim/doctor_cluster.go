package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/node/rediscluster"
)

// clusterStartTimeout bounds the doctor's start of one cluster.
const clusterStartTimeout = 60 * time.Second

// clusterChecks say, per server, whether --backend redis-cluster can run
// here: the server starts as a Redis Cluster the way the cluster
// scenarios use it (3 masters with a replica each, every slot covered,
// every replica linked), which it then stops. The cluster is built with
// the servers' own commands, so no redis-cli or valkey-cli is needed. A
// cluster is run only when a scenario asks for one, so a server that is
// missing or cannot is n/a, not a failed check.
func clusterChecks(ctx context.Context) []check {
	servers := []sim.Server{sim.ServerRedis, sim.ServerValkey}
	out := make([]check, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); out[i] = clusterCheck(ctx, s) }() // both at once: each start takes seconds
	}
	wg.Wait()
	return out
}

func clusterCheck(ctx context.Context, s sim.Server) check {
	name := fmt.Sprintf("cluster (%s)", s)
	path, err := node.LookupServer(s, "")
	if err != nil {
		return check{name, false, fmt.Sprintf("%s not found in PATH: needed for --backend redis-cluster%s (%s)", s.Binary(), serverFlag(s), s.Install())}
	}
	ctx, cancel := context.WithTimeout(ctx, clusterStartTimeout)
	defer cancel()
	start := time.Now()
	c, err := rediscluster.Start(ctx, rediscluster.Options{Server: path})
	if err != nil {
		return check{name, false, fmt.Sprintf("%s does not start a cluster: %v", path, err)}
	}
	took := time.Since(start)
	if err := c.Stop(); err != nil {
		return check{name, false, fmt.Sprintf("%s started a cluster but stopping it failed: %v", path, err)}
	}
	return check{name, true, fmt.Sprintf("%s starts a cluster of %d nodes (3 masters, a replica each) in %s, for --backend redis-cluster%s",
		s.Binary(), len(c.Addrs()), took.Round(100*time.Millisecond), serverFlag(s))}
}

// serverFlag is the flag that picks s, "" for the default.
func serverFlag(s sim.Server) string {
	if s == sim.ServerRedis {
		return ""
	}
	return " --server " + string(s)
}
