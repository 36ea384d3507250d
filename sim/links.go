package sim

import "github.com/locksim/locksim/sim/network"

// Links lists every link of a world configured by cfg (defaults filled in):
// each client to each node and to the resource, then each replica to its
// master.
func Links(cfg Config) []network.Link {
	nodes := cfg.Cluster.nodeCount()
	var out []network.Link
	for c := 0; c < cfg.Clients; c++ {
		for n := 0; n < nodes; n++ {
			out = append(out, network.Link{From: network.ClientEnd(c), To: network.NodeEnd(n)})
		}
		out = append(out, network.Link{From: network.ClientEnd(c), To: network.ResourceEnd})
		if cfg.Cluster.sentinelMode() {
			for k := 0; k < Sentinels; k++ {
				out = append(out, network.Link{From: network.ClientEnd(c), To: network.SentinelEnd(k)})
			}
		}
	}
	for r := 0; r < cfg.Cluster.Replicas && r < 1; r++ {
		for n := 0; n < nodes; n++ {
			out = append(out, network.Link{From: network.ReplicaEnd(n), To: network.NodeEnd(n)})
		}
	}
	return out
}
