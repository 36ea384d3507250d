package node

import (
	"maps"

	"github.com/redis/go-redis/v9"
)

// ClusterConn is one client's connection to a Redis Cluster: a go-redis
// ClusterClient, and the address each node of the cluster is dialed at
// (the client's proxy for it, or the node itself for a client without
// proxies). The cluster announces its nodes' own addresses (CLUSTER SLOTS,
// -MOVED, -ASK); the ClusterClient maps them with its dialer, and a
// client outside locksim (a process design's child) needs the same map
// to keep its traffic on the proxies.
type ClusterConn struct {
	*redis.ClusterClient
	dialAddrs map[string]string
}

// ClusterDialAddrs maps every node's own address to the address the
// client dials it at.
func (c *ClusterConn) ClusterDialAddrs() map[string]string { return maps.Clone(c.dialAddrs) }
