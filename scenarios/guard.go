package scenarios

// A run's lease on external servers: a namespace of its own (every key
// under locksim:<run id>:) and a guard key that tells a second run the
// servers are in use, renewed while the run lives.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/sim"
)

// GuardKey is the key a run on external servers holds on each of them
// while it runs; its value names the run. A second run that finds it
// refuses to start.
const GuardKey = "locksim:guard"

// guardTTL is how long a guard outlives its last renewal: a run killed
// with SIGKILL frees the servers after it. guardRenew is how often a live
// run renews it, a third of its TTL so that two renewals may fail.
const (
	guardTTL   = 15 * time.Second
	guardRenew = guardTTL / 3
)

// renewGuard extends the guard only while it is still this run's.
var renewGuard = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)

// releaseGuard deletes the guard only while it is still this run's.
var releaseGuard = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// ErrServersBusy is wrapped by the error of a run that found external
// servers held by another run. It is no bad input (the same command runs
// once the other run ends) and wraps sim.ErrHarness: locksim could not
// run.
var ErrServersBusy = fmt.Errorf("%w: external servers in use by another locksim run", sim.ErrHarness)

// lease is one run's hold on the external servers.
type lease struct {
	prefix  string // every key of the run starts with it
	value   string // the guard's value: who holds it
	addrs   []string
	clients []*redis.Client

	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	lost []string // nodes whose guard lapsed or was taken during the run
}

// newRunID is a short random id for a run's key prefix.
func newRunID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}

// takeLease takes the guard on every server at addrs, or none of them:
// a server whose guard another run holds refuses the run with one line
// naming the server and the holder.
func takeLease(ctx context.Context, addrs []string) (*lease, error) {
	id := newRunID()
	host, _ := os.Hostname()
	l := &lease{
		prefix: sim.DefaultKeyPrefix + id + ":",
		value:  fmt.Sprintf("run %s, pid %d on %s, since %s", id, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339)),
		addrs:  addrs,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for i, addr := range addrs {
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1, DialTimeout: 2 * time.Second, ContextTimeoutEnabled: true})
		l.clients = append(l.clients, c)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ok, err := c.SetNX(cctx, GuardKey, l.value, guardTTL).Result()
		var holder string
		var left time.Duration
		if err == nil && !ok {
			holder, _ = c.Get(cctx, GuardKey).Result()
			left, _ = c.PTTL(cctx, GuardKey).Result()
		}
		cancel()
		if err == nil && !ok {
			l.release(ctx)
			return nil, fmt.Errorf("%w: external node %d at %s: %s holds it (guard key %s, lapses %v after that run stops); runs on one server go one at a time",
				ErrServersBusy, i, addr, holder, GuardKey, left.Round(time.Second))
		}
		if err != nil {
			l.release(ctx)
			return nil, fmt.Errorf("%w: external node %d at %s: take guard key %s: %w", sim.ErrHarness, i, addr, GuardKey, err)
		}
	}
	go l.renew()
	return l, nil
}

// renew extends the guard every guardRenew until end stops it. A guard
// found gone is taken again when it can be, and the node is noted.
func (l *lease) renew() {
	defer close(l.done)
	t := time.NewTicker(guardRenew)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		for i, c := range l.clients {
			ctx, cancel := context.WithTimeout(context.Background(), guardRenew)
			n, err := renewGuard.Run(ctx, c, []string{GuardKey}, l.value, guardTTL.Milliseconds()).Int64()
			if err == nil && n == 0 {
				l.mu.Lock()
				l.lost = append(l.lost, fmt.Sprintf("node %d at %s", i, l.addrs[i]))
				l.mu.Unlock()
				_ = c.SetNX(ctx, GuardKey, l.value, guardTTL).Err()
			}
			cancel()
		}
	}
}

// end stops the renewal, deletes the run's keys (those under its prefix,
// and nothing else) and releases the guard. It runs after an interrupted
// run too, on a context of its own bounded like the clean-up. It returns
// the notes the report carries about it.
func (l *lease) end(ctx context.Context) ([]string, error) {
	close(l.stop)
	<-l.done
	ctx = context.WithoutCancel(ctx)
	var notes []string
	removed, err := clearKeys(ctx, l.addrs, l.prefix)
	l.release(ctx)
	notes = append(notes, fmt.Sprintf("external backend: the run's keys were under %q, its own; the %d left after it were deleted", l.prefix, removed))
	if len(l.lost) > 0 {
		notes = append(notes, fmt.Sprintf("external backend: the guard key %s lapsed during the run on %v: another run may have used the servers at the same time", GuardKey, l.lost))
	}
	if err != nil {
		return notes, fmt.Errorf("%w: %w", sim.ErrHarness, err)
	}
	return notes, nil
}

// release deletes the guard where it is still this run's and closes the
// clients.
func (l *lease) release(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, c := range l.clients {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = releaseGuard.Run(cctx, c, []string{GuardKey}, l.value).Err()
		cancel()
		_ = c.Close()
	}
	l.clients = nil
}
