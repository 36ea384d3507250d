package miniredis

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestLuaModuleActsOnTheCallAtHand checks the pooled Lua states' redis
// module: each script's redis.call reaches the server and the connection
// that ran the script, and a script that changes the module leaves no
// change to the next.
func TestLuaModuleActsOnTheCallAtHand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cls := []*redis.Client{startClient(t), startClient(t)}
	eval := func(cl *redis.Client, src string, keys []string, args ...any) (any, error) {
		return cl.Eval(ctx, src, keys, args...).Result()
	}
	for i := range 20 {
		cl, other := cls[i%2], cls[1-i%2]
		v := string(rune('a' + i))
		if _, err := eval(cl, `return redis.call('SET', KEYS[1], ARGV[1])`, []string{"k"}, v); err != nil {
			t.Fatal(err)
		}
		got, err := cl.Get(ctx, "k").Result()
		if err != nil || got != v {
			t.Fatalf("script %d: the server that ran it holds %q, %v; want %q", i, got, err, v)
		}
		if i > 0 {
			prev := string(rune('a' + i - 1))
			if got, _ := other.Get(ctx, "k").Result(); got != prev {
				t.Fatalf("script %d reached the other server: it holds %q, want %q", i, got, prev)
			}
		}
	}
	// redis.call on another DB than the connection's: SELECT in the script.
	if _, err := eval(cls[0], `redis.call('SELECT', 3); return redis.call('SET', 'db3', 'x')`, nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := cls[0].Exists(ctx, "db3").Result(); n != 0 {
		t.Fatal("the script's SELECT moved the connection's DB")
	}
	for _, src := range []string{
		`redis.call = function() return 'stolen' end; return 1`,
		`redis.extra = 1; return 1`,
		`redis.LOG_DEBUG = 7; return 1`,
		`setmetatable(redis, {__index = function() return 'meta' end}); return 1`,
		`server.call = nil; return 1`,
		`redis[1] = 'x'; return 1`,
		`redis[2.5] = 'y'; return 1`,
	} {
		if _, err := eval(cls[0], src, nil); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, cl := range cls {
			got, err := eval(cl, `return tostring(redis.call('PING')['ok']) .. tostring(redis.extra) .. tostring(redis.missing) .. redis.LOG_DEBUG .. tostring(server.call == redis.call) .. tostring(redis[1]) .. tostring(redis[2.5])`, nil)
			if err != nil || got != "PONGnilnil0truenilnil" {
				t.Fatalf("after %s: got %v, %v; want the module as built", src, got, err)
			}
		}
	}
}

// TestLuaKeysArgvAsLarge checks what a script sees of KEYS and ARGV, made
// as large as they are, and that a nested vararg function keeps Lua 5.1's
// arg table.
func TestLuaKeysArgvAsLarge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := startClient(t)
	for _, tc := range []struct {
		src  string
		keys []string
		args []any
		want any
	}{
		{`return #KEYS .. "/" .. #ARGV`, nil, nil, "0/0"},
		{`return #KEYS .. "/" .. #ARGV`, []string{"a", "b", "c"}, []any{"x"}, "3/1"},
		{`return KEYS[3] .. ARGV[2] .. tostring(KEYS[4])`, []string{"a", "b", "c"}, []any{"x", "y"}, "cynil"},
		{`KEYS[5] = "e"; KEYS.n = 9; ARGV[1] = "z"; return KEYS[5] .. KEYS.n .. ARGV[1] .. #ARGV`, []string{"a"}, []any{"x", "y"}, "e9z2"},
		{`local n = 0; for i, k in ipairs(KEYS) do n = n + i end; for k, v in pairs(ARGV) do n = n + 10 end; return n`, []string{"a", "b"}, []any{"x", "y", "z"}, int64(33)},
		{`local function f(...) return arg.n .. arg[2] end; return f("p", "q")`, nil, nil, "2q"},
		{`return table.concat(ARGV, ",")`, nil, []any{"1", "2", "3"}, "1,2,3"},
	} {
		for range 2 { // a fresh state, then a pooled one
			got, err := cl.Eval(ctx, tc.src, tc.keys, tc.args...).Result()
			if err != nil || got != tc.want {
				t.Fatalf("%s: got %#v, %v; want %#v", tc.src, got, err, tc.want)
			}
		}
	}
}

// startClient starts a server on a loopback port and returns a client of
// it; both are closed when t ends.
func startClient(t *testing.T) *redis.Client {
	m := NewMiniRedis()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	cl := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}
