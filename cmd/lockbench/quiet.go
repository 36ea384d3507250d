package main

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// go-redis logs every Sentinel discovery and master switch on stderr (under
// --under a failover scenario on redis-server); lockbench's progress and
// summary are what its user reads.
func init() { redis.SetLogger(quietLogger{}) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
