package node

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock/locktest"
)

// A failover on miniredis puts every key written in the lost window back
// to its state at the window's start, as a promoted replica holds it: a
// DEL is undone (the previous holder's key is back, with the TTL it had
// left), a SET is lost, a script's write to a key it names is undone.
func TestFailoverEmulationRevertsTheLostWindow(t *testing.T) {
	n, err := startMiniNode(0, nil)
	require.NoError(t, err)
	defer func() { _ = n.close() }()
	n.writes.enable()
	cl := redis.NewClient(&redis.Options{Addr: n.Addr(), DisableIdentity: true, MaxRetries: -1})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), locktest.HangGuard)
	defer cancel()

	require.NoError(t, cl.Set(ctx, "held", "c0-1", 10*time.Second).Err())
	require.NoError(t, cl.HSet(ctx, "reentrant", "c0", 2).Err())
	require.NoError(t, cl.Set(ctx, "before", "kept", 0).Err())
	time.Sleep(time.Millisecond)
	cut := time.Now()
	require.NoError(t, cl.Del(ctx, "held").Err())
	require.NoError(t, cl.Set(ctx, "held", "c1-1", 10*time.Second).Err())
	require.NoError(t, cl.Set(ctx, "new", "lost", 0).Err())
	require.NoError(t, cl.Eval(ctx, `redis.call('HINCRBY', KEYS[1], 'c0', -2); redis.call('DEL', KEYS[1]); return 1`, []string{"reentrant"}).Err())

	changed := n.revertWritesSince(cut)
	assert.Equal(t, []string{"held", "new", "reentrant"}, changed)
	db := n.srv.DB(0)
	got, _ := db.Get("held")
	assert.Equal(t, "c0-1", got, "the DEL and the later SET are undone")
	assert.Greater(t, db.TTL("held"), time.Duration(0), "the key keeps a TTL")
	assert.LessOrEqual(t, db.TTL("held"), 10*time.Second)
	assert.False(t, db.Exists("new"), "a key first written in the window is lost")
	assert.Equal(t, "2", db.HGet("reentrant", "c0"), "the script's writes to its KEYS are undone")
	got, _ = db.Get("before")
	assert.Equal(t, "kept", got, "a key not written in the window stays")
}

// A key whose state before the window the log no longer holds is lost, as
// before: never a made-up state.
func TestFailoverEmulationLosesWhatItCannotRevert(t *testing.T) {
	t0 := time.Now()
	fill := func() *writeLog {
		w := &writeLog{}
		w.enable()
		for i := range maxPriorPerKey + 2 {
			w.remember("k", keyState{at: t0.Add(time.Duration(i) * time.Millisecond), exists: true, known: true, str: "v"})
		}
		return w
	}
	_, ok := fill().stateAt("k", t0)
	assert.False(t, ok, "trimmed past the instant")
	st, ok := fill().stateAt("k", t0.Add(time.Duration(maxPriorPerKey)*time.Millisecond))
	assert.True(t, ok)
	assert.Equal(t, "v", st.str)
}
