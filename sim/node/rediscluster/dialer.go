package rediscluster

import (
	"context"
	"fmt"
	"net"
)

// Dialer is a dial function for redis.ClusterOptions.Dialer that reaches
// every node through its proxy. go-redis dials the address a node
// announces (in CLUSTER SLOTS, in -MOVED and -ASK replies); proxyOf maps
// it to the proxy's address. A node without a proxy is an error, never a
// direct connection: no traffic may bypass the proxies, or a network fault
// on them would miss it. The ClusterClient's seed addresses (Addrs) stay
// the nodes' own, so that its slot table and redirects name the same
// nodes the cluster does.
func Dialer(proxyOf func(nodeAddr string) string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		p := proxyOf(addr)
		if p == "" {
			return nil, fmt.Errorf("rediscluster: no proxy for cluster node %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, p)
	}
}
