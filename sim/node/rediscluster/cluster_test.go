package rediscluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/internal/pids"
)

func itoa(i int) string { return strconv.Itoa(i) }

func TestSlotOfKnownValues(t *testing.T) {
	for key, want := range map[string]int{
		"123456789":            0x31C3 % Slots, // CRC-16/XMODEM's check value
		"foo":                  12182,
		"{user1000}.following": SlotOf("user1000"),
		"{user1000}.followers": SlotOf("user1000"),
		"foo{{bar}}zap":        SlotOf("{bar"),
		"foo{bar}{zap}":        SlotOf("bar"),
	} {
		if got := SlotOf(key); got != want {
			t.Errorf("SlotOf(%q) = %d, want %d", key, got, want)
		}
	}
	if SlotOf("foo{}{bar}") == SlotOf("bar") {
		t.Error(`"foo{}{bar}" hashes whole, not by "bar"`)
	}
}

// checkStartStop starts a cluster of server, checks its shape, the slot
// function against CLUSTER KEYSLOT, then that Stop leaves no process and
// no directory, and can be called again.
func checkStartStop(t *testing.T, server string) {
	c := startCluster(t, Options{Server: server})
	ctx := testCtx(t, 30*time.Second)
	if got := len(c.Addrs()); got != 6 {
		t.Fatalf("%d nodes, want 3 masters and 3 replicas", got)
	}
	masters, err := c.Masters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	replicas, err := c.Replicas(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(masters) != 3 || len(replicas) != 3 {
		t.Fatalf("masters %v, replicas %v: want 3 of each", masters, replicas)
	}
	var followers []string
	for _, m := range masters {
		r, err := c.ReplicaOf(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(r) != 1 {
			t.Errorf("master %s has replicas %v, want one", m, r)
		}
		followers = append(followers, r...)
	}
	slices.Sort(followers)
	if !slices.Equal(followers, replicas) {
		t.Errorf("the masters' replicas %v are not the replicas %v", followers, replicas)
	}
	for _, slot := range []int{0, 5460, 5461, 10922, 10923, Slots - 1} {
		owner, err := c.OwnerOf(ctx, slot)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(masters, owner) {
			t.Errorf("slot %d on %s, not a master", slot, owner)
		}
	}
	cl := nodeClient(t, c.Addrs()[0])
	for _, key := range []string{"", "lock", "lock:{orders}", "{orders}:fence", "a{}b", "foo{}{bar}", "foo{bar}{zap}", "{{x}}", "x{y", "ünïcode", "locksim:lock:42"} {
		want, err := cl.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := SlotOf(key); got != int(want) {
			t.Errorf("SlotOf(%q) = %d, CLUSTER KEYSLOT says %d", key, got, want)
		}
	}
	info, err := cl.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(info, "\n") {
		if strings.HasPrefix(l, "redis_version") || strings.HasPrefix(l, "valkey_version") {
			t.Log(strings.TrimSpace(l))
		}
	}

	// The config epochs are set, none left to settle: a collision bumped
	// after Start returned can leave a replica with its master's old
	// epoch, and no election for it. (valkey-server logs a collision at
	// its default level, redis-server only at verbose.)
	time.Sleep(500 * time.Millisecond) // a collision is handled on the next PING
	for i, d := range nodeDirs(c) {
		b, err := os.ReadFile(filepath.Join(d, logName))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "configEpoch collision") {
			t.Errorf("node %d's log: a config epoch collision", i)
		}
	}

	started := c.Pids()
	if len(started) != 6 {
		t.Fatalf("pids %v: want 6", started)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range started {
		if pids.Alive(pid) {
			t.Errorf("pid %d outlives Stop", pid)
		}
	}
	if _, err := os.Stat(c.Dir()); !os.IsNotExist(err) {
		t.Errorf("%s outlives Stop: %v", c.Dir(), err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if got := c.Pids(); len(got) != 0 {
		t.Errorf("pids %v after Stop", got)
	}
}

func TestStartStop(t *testing.T) {
	checkStartStop(t, serverOrSkip(t, "redis-server"))
}

func TestStartStopValkey(t *testing.T) {
	checkStartStop(t, serverOrSkip(t, "valkey-server"))
}

// A server that cannot start is one line naming the node and the
// server's own last words, and nothing is left behind.
func TestStartFailureIsOneLine(t *testing.T) {
	server := serverOrSkip(t, "redis-server")
	dir := t.TempDir()
	ctx := testCtx(t, 20*time.Second)
	_, err := Start(ctx, Options{Server: server, Dir: dir, NodeTimeout: 99 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "NodeTimeout") {
		t.Fatalf("NodeTimeout 99ms: %v, want an error naming NodeTimeout", err)
	}
	// A "server" that says why it refuses to run and exits.
	fake := filepath.Join(t.TempDir(), "refusing-server")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'FATAL CONFIG FILE ERROR: refused by the test' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Start(ctx, Options{Server: fake, Dir: dir})
	if err == nil {
		t.Fatal("a server that exits at once started")
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "node 0") || !strings.Contains(err.Error(), "last log line") {
		t.Errorf("error %q: want one line naming node 0 and its last log line", err)
	}
	if !strings.Contains(err.Error(), "refused by the test") {
		t.Errorf("error %q: want the server's last words", err)
	}
	t.Log(err)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("%d entries left in %s", len(entries), dir)
	}
}

// A context already ended stops Start at its first wait, with nothing
// left behind.
func TestStartHonoursContext(t *testing.T) {
	server := serverOrSkip(t, "redis-server")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	began := time.Now()
	_, err := Start(ctx, Options{Server: server, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("Start with an ended context: %v, want context canceled", err)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("Start took %v to give up", took)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left in %s", len(entries), dir)
	}
	if _, err := Start(context.Background(), Options{Server: server, Dir: dir, Masters: -1}); err == nil || !strings.Contains(err.Error(), "Masters -1") {
		t.Errorf("Masters -1: %v, want an error naming it", err)
	}
}

// nodeDirs is each node's directory, in start order.
func nodeDirs(c *Cluster) []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.dir
	}
	return out
}
