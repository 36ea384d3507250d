package main

import (
	"time"

	"github.com/go-redis/redis/v8"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	goredis "github.com/go-redsync/redsync/v4/redis/goredis/v8"
)

// newPool is one node's go-redis v8 client: no retries, every command
// bounded by the run's node timeout, so a slow node is a lost vote.
func newPool(addr string, nodeT time.Duration) redsyncredis.Pool {
	return goredis.NewPool(redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: nodeT, WriteTimeout: nodeT, PoolSize: 4,
	}))
}

// timeoutOption is empty: these versions (before v4.5.0) have no timeout factor, and a
// round waits for the node clients' own timeouts.
func timeoutOption(_, _ time.Duration) []redsync.Option { return nil }
