package node

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/internal/miniredis"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock/locktest"
)

// The miniredis locksim builds against (internal/miniredis) keeps Lua
// states between script calls instead of opening a fresh one for each.
// Nothing of one call may reach the next: KEYS, ARGV and the redis module
// are the call's own, a script still cannot create globals, and a script
// that failed leaves nothing behind. Concurrent calls (one per node and
// client in a run) each see their own arguments.
func TestScriptCallsShareNoState(t *testing.T) {
	m := miniredis.NewMiniRedis()
	require.NoError(t, m.StartAddr("127.0.0.1:0"))
	defer m.Close()
	cl := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true, MaxRetries: -1})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), locktest.HangGuard)
	defer cancel()

	got, err := cl.Eval(ctx, `redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])`, []string{"k"}, "v1").Result()
	require.NoError(t, err)
	assert.Equal(t, "v1", got)

	got, err = cl.Eval(ctx, `return #KEYS .. ':' .. #ARGV .. ':' .. tostring(KEYS[1])`, nil).Result()
	require.NoError(t, err)
	assert.Equal(t, "0:0:nil", got, "the last call's KEYS and ARGV are gone")

	_, err = cl.Eval(ctx, `leak = 1; return 1`, nil).Result()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "global variable 'leak'")
	_, err = cl.Eval(ctx, `return leak`, nil).Result()
	require.Error(t, err, "the refused global was not kept")
	assert.Contains(t, err.Error(), "nonexistent global variable 'leak'")

	_, err = cl.Eval(ctx, `redis.call('SET', 'n', 'x'); redis.call('INCR', 'n'); return 1`, nil).Result()
	require.Error(t, err, "INCR of a string fails the script")
	got, err = cl.Eval(ctx, `return redis.call('GET', 'n')`, nil).Result()
	require.NoError(t, err, "a call after a failed one runs")
	assert.Equal(t, "x", got)

	_, err = cl.Eval(ctx, `redis.mine = 1; return 1`, nil).Result()
	require.NoError(t, err)
	got, err = cl.Eval(ctx, `return tostring(redis.mine)`, nil).Result()
	require.NoError(t, err)
	assert.Equal(t, "nil", got, "the redis module is the call's own")

	// redis.call's buffers are shared by every server of the process:
	// two servers, replies shorter and longer than a buffer (4 KiB).
	m2 := miniredis.NewMiniRedis()
	require.NoError(t, m2.StartAddr("127.0.0.1:0"))
	defer m2.Close()
	cl2 := redis.NewClient(&redis.Options{Addr: m2.Addr(), DisableIdentity: true, MaxRetries: -1})
	defer cl2.Close()
	const src = `redis.call('SET', KEYS[1], ARGV[1]); return KEYS[1] .. redis.call('GET', KEYS[1])`
	sha, err := cl.ScriptLoad(ctx, src).Result()
	require.NoError(t, err)
	require.NoError(t, cl2.ScriptLoad(ctx, src).Err())
	var wg sync.WaitGroup
	errs := make(chan error, 8*50)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := []*redis.Client{cl, cl2}[g%2]
			for i := range 50 {
				k, a := fmt.Sprintf("k%d", g), fmt.Sprintf("-%d-%s", i, strings.Repeat("v", i*200))
				v, err := c.EvalSha(ctx, sha, []string{k}, a).Result()
				if err == nil && v != k+a {
					err = fmt.Errorf("call %s %.20s... returned %.40v...", k, a, v)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
