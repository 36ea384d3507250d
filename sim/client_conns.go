package sim

import "github.com/redis/go-redis/v9"

// Conns are the client's connections to the nodes, in node order: through
// its proxies when the run has them. Tests use them to see the network as
// the client sees it.
func (c *Client) Conns() []redis.UniversalClient {
	return append([]redis.UniversalClient(nil), c.conns...)
}
