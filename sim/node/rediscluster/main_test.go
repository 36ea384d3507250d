package rediscluster

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/goleak"
)

// Every goroutine a cluster or a test client starts must be gone after.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// requireEnv makes a missing server a failure instead of a skip, as in CI.
const requireEnv = "LOCKSIM_REQUIRE_REDIS"

// serverOrSkip is the path of the named server binary; without it the
// test is skipped, or failed when LOCKSIM_REQUIRE_REDIS=1.
func serverOrSkip(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s is not in PATH and %s=1", name, requireEnv)
		}
		t.Skipf("%s is not in PATH (set %s=1 to fail instead)", name, requireEnv)
	}
	return path
}

// startCluster starts a cluster of redis-server with o's other options
// and stops it when the test ends.
func startCluster(t *testing.T, o Options) *Cluster {
	t.Helper()
	if o.Server == "" {
		o.Server = serverOrSkip(t, "redis-server")
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	began := time.Now()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster of %d nodes formed in %v", len(c.Addrs()), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// nodeClient is a plain client to one node, closed when the test ends.
func nodeClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	cl := redis.NewClient(&redis.Options{
		Addr:                     addr,
		Protocol:                 2,
		MaxRetries:               -1,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// keyOn is a key whose slot master serves, and the slot.
func keyOn(t *testing.T, ctx context.Context, c *Cluster, master, prefix string) (string, int) {
	t.Helper()
	for i := range 100000 {
		k := prefix + ":" + itoa(i)
		slot := SlotOf(k)
		owner, err := c.OwnerOf(ctx, slot)
		if err != nil {
			t.Fatal(err)
		}
		if owner == master {
			return k, slot
		}
	}
	t.Fatalf("no key %s:N on %s", prefix, master)
	return "", 0
}
