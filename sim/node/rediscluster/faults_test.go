package rediscluster

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not within %v: %v", what, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A lock key set with SET NX PX on its owner arrives on the new owner
// with its value and the rest of its TTL; a key without TTL stays without.
func TestReshardKeepsLockTTL(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 30*time.Second)
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key, slot := keyOn(t, ctx, c, masters[0], "lock")
	plain := "{" + key + "}:plain"
	const ttl = 20 * time.Second
	src := nodeClient(t, masters[0])
	set := time.Now()
	if ok, err := src.SetNX(ctx, key, "token-1", ttl).Result(); err != nil || !ok {
		t.Fatalf("SET NX PX on %s: %v %v", masters[0], ok, err)
	}
	if err := src.Set(ctx, plain, "x", 0).Err(); err != nil {
		t.Fatal(err)
	}

	m, err := c.BeginMigration(ctx, slot, masters[1])
	if err != nil {
		t.Fatal(err)
	}
	moved, err := m.MigrateKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moved != 2 {
		t.Errorf("MigrateKeys moved %d keys, want 2", moved)
	}
	if err := m.FinishMigration(ctx); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(set)
	t.Logf("slot %d moved from %s to %s, %v after the SET", slot, m.From, m.To, elapsed.Round(time.Millisecond))

	if owner, err := c.OwnerOf(ctx, slot); err != nil || owner != masters[1] {
		t.Fatalf("slot %d on %q (%v), want %s", slot, owner, err, masters[1])
	}
	dst := nodeClient(t, masters[1])
	if v, err := dst.Get(ctx, key).Result(); err != nil || v != "token-1" {
		t.Fatalf("GET %s on the new owner: %q %v", key, v, err)
	}
	pttl, err := dst.PTTL(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if pttl > ttl || pttl < ttl-elapsed-50*time.Millisecond {
		t.Errorf("PTTL %v after the move, want within [%v, %v]", pttl, ttl-elapsed, ttl)
	}
	t.Logf("PTTL %v on the new owner (set with %v, %v before)", pttl, ttl, elapsed.Round(time.Millisecond))
	if p, err := dst.PTTL(ctx, plain).Result(); err != nil || p != -1*time.Nanosecond {
		t.Errorf("PTTL of a key without TTL: %v %v, want -1 (no TTL)", p, err)
	}
	if err := src.Get(ctx, key).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Errorf("GET on the old owner: %v, want MOVED", err)
	}
}

// A killed master's replica wins the election within a bound; the
// restarted master rejoins as its replica.
func TestKilledMasterFailsOver(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 40*time.Second)
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := masters[0]
	heirs, err := c.ReplicaOf(ctx, old)
	if err != nil || len(heirs) != 1 {
		t.Fatalf("replicas of %s: %v %v", old, heirs, err)
	}
	_, slot := keyOn(t, ctx, c, old, "lock")
	if err := c.Kill(ctx, old); err != nil {
		t.Fatal(err)
	}
	winner, took, err := c.WaitFailover(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("master %s killed: %s promoted %v after the kill (NodeTimeout %v)", old, winner, took.Round(time.Millisecond), DefaultNodeTimeout)
	if winner != heirs[0] {
		t.Errorf("%s promoted, want %s's replica %s", winner, old, heirs[0])
	}
	// Detection takes NodeTimeout, the election at least 500 ms more.
	if took < DefaultNodeTimeout || took > 10*DefaultNodeTimeout {
		t.Errorf("election %v after the kill, want between NodeTimeout and 10 times it", took)
	}
	waitFor(t, 5*time.Second, "the slot's new owner seen", func() error {
		owner, err := c.OwnerOf(ctx, slot)
		if err == nil && owner != winner {
			err = errors.New("owner " + owner)
		}
		return err
	})

	if err := c.Restart(ctx, old); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, old+" rejoining as "+winner+"'s replica", func() error {
		r, err := c.ReplicaOf(ctx, winner)
		if err == nil && !slices.Contains(r, old) {
			err = errors.New("replicas " + strings.Join(r, ","))
		}
		return err
	})
}

// A paused master is failed over like a dead one; resumed, it follows.
func TestPausedMasterFailsOver(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 40*time.Second)
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := masters[1]
	if err := c.PauseNode(old); err != nil {
		t.Fatal(err)
	}
	winner, took, err := c.WaitFailover(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("master %s paused: %s promoted %v after the pause", old, winner, took.Round(time.Millisecond))
	if err := c.ResumeNode(old); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, old+" following "+winner, func() error {
		r, err := c.ReplicaOf(ctx, winner)
		if err == nil && !slices.Contains(r, old) {
			err = errors.New("replicas " + strings.Join(r, ","))
		}
		return err
	})
}

// CLUSTER FAILOVER in each mode, each on another master's replica right
// after a write on the master (the same master twice within 2 x
// NodeTimeout gets no votes the second time): the promoted replica has
// the write. A default manual failover waits for the replica to catch up;
// on loopback with a live master FORCE and TAKEOVER usually find it caught
// up too, which the test does not require of them.
func TestManualFailoverKeepsWrite(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 40*time.Second)
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, mode := range []FailoverMode{FailoverDefault, FailoverForce, FailoverTakeover} {
		master := masters[i]
		key, _ := keyOn(t, ctx, c, master, "lock")
		r, err := c.ReplicaOf(ctx, master)
		if err != nil || len(r) != 1 {
			t.Fatalf("replicas of %s: %v %v", master, r, err)
		}
		replica := r[0]
		token := "token-" + itoa(i)
		if err := nodeClient(t, master).Set(ctx, key, token, 20*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Failover(ctx, replica, mode); err != nil {
			t.Fatal(err)
		}
		took, err := c.WaitPromoted(ctx, replica)
		if err != nil {
			t.Fatal(err)
		}
		v, err := nodeClient(t, replica).Get(ctx, key).Result()
		t.Logf("CLUSTER FAILOVER %q on %s: promoted after %v; GET %s there: %q %v", mode, replica, took.Round(time.Millisecond), key, v, err)
		if mode == FailoverDefault && (err != nil || v != token) {
			t.Fatalf("GET on the promoted replica after a default failover: %q %v, want %q", v, err, token)
		}
		waitFor(t, 10*time.Second, master+" following "+replica, func() error {
			rs, err := c.ReplicaOf(ctx, replica)
			if err == nil && !slices.Contains(rs, master) {
				err = errors.New("replicas " + strings.Join(rs, ","))
			}
			return err
		})
	}
	if err := c.Failover(ctx, masters[0], "SOON"); err == nil || !strings.Contains(err.Error(), `"SOON"`) {
		t.Errorf("mode SOON: %v, want an error naming it", err)
	}
}

// A script on two keys of different slots meets the server's CROSSSLOT
// error; with a shared hash tag it runs.
func TestCrossSlot(t *testing.T) {
	c := startCluster(t, Options{})
	ctx := testCtx(t, 20*time.Second)
	cl := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                    c.Addrs(),
		Protocol:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	defer cl.Close()
	const script = `redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return 1`
	a, b := "rwlock:a", "rwlock:b"
	if SlotOf(a) == SlotOf(b) {
		t.Fatalf("%s and %s share a slot", a, b)
	}
	err := cl.Eval(ctx, script, []string{a, b}, "x").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
		t.Fatalf("EVAL on %s and %s: %v, want CROSSSLOT", a, b, err)
	}
	t.Log(err)
	ta, tb := "{rwlock}:a", "{rwlock}:b"
	if err := cl.Eval(ctx, script, []string{ta, tb}, "x").Err(); err != nil {
		t.Fatalf("EVAL on %s and %s: %v", ta, tb, err)
	}
}
