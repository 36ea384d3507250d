package node

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/locksim/locksim/internal/miniredis/server"
	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock/locktest"
)

// scriptCall must tell a script's inner calls from the script's own
// command, or the node deadlocks on its first Lua script.
func TestScriptCallSpotsLuaInnerCalls(t *testing.T) {
	m := miniredis.NewMiniRedis()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var outer, inner atomic.Int32
	m.Server().SetPreHook(func(p *server.Peer, cmd string, _ ...string) bool {
		if scriptCall(p) {
			inner.Add(1)
		} else {
			outer.Add(1)
		}
		return false
	})
	cl := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true, MaxRetries: -1})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), locktest.HangGuard)
	defer cancel()
	if err := cl.Eval(ctx, `redis.call('SET', 'a', '1'); return redis.call('GET', 'a')`, nil).Err(); err != nil {
		t.Fatal(err)
	}
	if got := inner.Load(); got != 2 {
		t.Errorf("script's inner calls spotted: %d, want 2", got)
	}
	if outer.Load() == 0 {
		t.Error("the EVAL itself was taken for an inner call")
	}
}
