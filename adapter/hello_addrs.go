package adapter

import (
	"fmt"
	"net"
	"slices"

	"github.com/redis/go-redis/v9"
)

// clusterConn is a client's connection to a Redis Cluster as the
// simulator makes it (sim/node.ClusterConn): the addresses the cluster
// announces, each with the address the client dials it at (its proxy).
type clusterConn interface {
	ClusterDialAddrs() map[string]string
}

// helloAddrs are the addresses hello gives the child: one per node, the
// address the client reaches it at (its proxy when the run has them);
// on a Redis Cluster, the seed addresses (every node's proxy) and the map
// of the cluster's own addresses to them.
func helloAddrs(name string, nodes []redis.UniversalClient) ([]string, *helloCluster, error) {
	if len(nodes) == 1 {
		if cc, ok := nodes[0].(clusterConn); ok {
			dial := cc.ClusterDialAddrs()
			seeds := make([]string, 0, len(dial))
			for _, via := range dial {
				if _, _, err := net.SplitHostPort(via); err != nil {
					return nil, nil, fmt.Errorf("%s: a cluster node dialed at %q, not a host:port", name, via)
				}
				seeds = append(seeds, via)
			}
			slices.Sort(seeds)
			return seeds, &helloCluster{Dial: dial}, nil
		}
	}
	addrs := make([]string, len(nodes))
	for i, n := range nodes {
		rc, ok := n.(*redis.Client)
		if !ok {
			return nil, nil, fmt.Errorf("%s: node %d: a process design needs plain node clients or a cluster's (%T)", name, i, n)
		}
		addrs[i] = rc.Options().Addr
		if _, _, err := net.SplitHostPort(addrs[i]); err != nil {
			// a Sentinel failover client's Addr is a placeholder
			return nil, nil, fmt.Errorf("%s: node %d: a process design needs a node's host:port, not %q (a Sentinel client? use failover mode direct)", name, i, addrs[i])
		}
	}
	return addrs, nil, nil
}
