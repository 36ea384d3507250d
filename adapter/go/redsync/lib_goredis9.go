package main

import (
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	goredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// newPool is one node's go-redis v9 client: no retries, every command
// bounded by the run's node timeout, so a slow node is a lost vote.
func newPool(addr string, nodeT time.Duration) redsyncredis.Pool {
	return goredis.NewPool(redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: nodeT, WriteTimeout: nodeT, PoolSize: 4,
	}))
}

// timeoutOption bounds each round by the node timeout, as the library's
// timeout factor is a share of the TTL.
func timeoutOption(nodeT, ttl time.Duration) []redsync.Option {
	return []redsync.Option{redsync.WithTimeoutFactor(float64(nodeT) / float64(ttl))}
}
