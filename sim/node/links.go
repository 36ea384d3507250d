package node

import "github.com/locksim/locksim/sim/network"

// Links lists every link of a cluster configured by cfg (defaults filled
// in) with clients clients: each client to each node and to the resource
// (and to each sentinel in sentinel mode), then each replica to its master.
func (cfg ClusterConfig) Links(clients int) []network.Link {
	nodes := cfg.NodeCount()
	var out []network.Link
	for c := 0; c < clients; c++ {
		for n := 0; n < nodes; n++ {
			out = append(out, network.Link{From: network.ClientEnd(c), To: network.NodeEnd(n)})
		}
		out = append(out, network.Link{From: network.ClientEnd(c), To: network.ResourceEnd})
		if cfg.sentinelMode() {
			for k := 0; k < Sentinels; k++ {
				out = append(out, network.Link{From: network.ClientEnd(c), To: network.SentinelEnd(k)})
			}
		}
	}
	for r := 0; r < cfg.Replicas && r < 1; r++ {
		for n := 0; n < nodes; n++ {
			out = append(out, network.Link{From: network.ReplicaEnd(n), To: network.NodeEnd(n)})
		}
	}
	return out
}
