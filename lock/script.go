package lock

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// script is a Lua script hashed once at start-up. go-redis's Script.Run sends
// EVALSHA and falls back to EVAL (which loads it) on NOSCRIPT, so a node that
// restarted empty still works.
type script struct{ s *redis.Script }

func newScript(src string) script { return script{redis.NewScript(src)} }

func (s script) run(ctx context.Context, c redis.Scripter, keys []string, args ...any) *redis.Cmd {
	return s.s.Run(ctx, c, keys, args...)
}
