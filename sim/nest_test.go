package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// forgetsCount is a broken reentrant lock: it acquires like reentrant but
// its release deletes the whole hold at the first unlock, as if it kept no
// hold count. It exists to show that nesting is exercised: a nested run
// must catch it.
type forgetsCount struct {
	lock.Locker
	node redis.UniversalClient
}

const forgetsCountName = "test-reentrant-forgets-count"

func init() {
	info, err := lock.Lookup("reentrant")
	if err != nil {
		panic(err)
	}
	info.Name = forgetsCountName
	info.Summary = "reentrant whose unlock deletes the whole hold (test only)"
	info.New = func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
		inner, err := lock.New("reentrant", nodes, o)
		if err != nil {
			return nil, err
		}
		return &forgetsCount{Locker: inner, node: nodes[0]}, nil
	}
	if err := lock.Register(info); err != nil {
		panic(err)
	}
}

func (f *forgetsCount) Release(ctx context.Context, l *lock.Lease) error {
	n, err := f.node.Del(ctx, l.Key).Result()
	if err != nil {
		return err
	}
	if n == 0 {
		return lock.ErrNotHeld
	}
	return nil
}

// nested: client 0 takes the lock three deep first and, after unwinding
// its two inner levels, stays inside on the outer one for 200 ms while
// client 1 tries.
func nested(b sim.Backend, algo string) sim.Config {
	return sim.Config{
		Algorithm: algo,
		Options:   lock.Options{TTL: 500 * time.Millisecond, ValidityCheck: true, Retry: lock.RetryPolicy{Interval: 10 * time.Millisecond}},
		Cluster:   sim.ClusterConfig{Backend: b, Nodes: 1},
		Clients:   2,
		Nest:      3,
		Duration:  time.Second,
		Hold:      40 * time.Millisecond,
		Seed:      1,
		Faults: []sim.Planned{
			{Fault: faults.PauseClient{Client: 1}, Start: sim.Trigger{Client: 1, Point: vocab.PointBeforeAcquire, Nth: 1},
				Until: &sim.Trigger{Client: 0, Point: vocab.PointAfterAcquire, Nth: 1}, For: 300 * time.Millisecond},
			{Fault: faults.PauseClient{Client: 0}, Start: sim.Trigger{Client: 0, Point: vocab.PointAfterUnwind, Nth: 1}, For: 200 * time.Millisecond},
		},
	}
}

func TestNestedReentrantUnwindsSafely(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := runChecked(t, nested(b, "reentrant"))
		assert.Empty(t, unfired(res))
		assert.Equal(t, vocab.Safe, r.Verdict, "%+v", r)
		// every cycle: 3 ok acquires of one hold, 3 ok releases
		acq, rel := 0, 0
		for _, op := range res.History.Ops {
			if op.Client == 0 && op.Outcome == sim.OK {
				switch op.Kind {
				case sim.KindAcquire:
					acq++
				case sim.KindRelease:
					rel++
				}
			}
		}
		assert.GreaterOrEqual(t, acq, 3, "client 0 nests three deep")
		assert.Equal(t, 0, acq%3, "whole cycles of three levels")
		assert.Equal(t, acq, rel, "every level unwound")
	})
}

func TestNestedLockThatForgetsItsCountIsUnsafe(t *testing.T) {
	simtest.ForEachBackend(t, func(t *testing.T, b sim.Backend) {
		res, r := runChecked(t, nested(b, forgetsCountName))
		assert.Empty(t, unfired(res))
		assert.Equal(t, vocab.Unsafe, r.Verdict, "%+v", r)
		assert.Equal(t, vocab.Unsafe, r.Check("exclusion").Verdict, "client 1 enters while client 0 is inside on its outer level")
		assert.Equal(t, vocab.Unsafe, r.Check("claim").Verdict, "client 0's outer level was still promised")
	})
}

func TestNestRefusedForNonReentrantDesigns(t *testing.T) {
	_, err := nested(sim.BackendMiniredis, "setpx").Resolve()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nest 3: setpx is not reentrant")
}

func TestRolesFixEachClientsMode(t *testing.T) {
	cfg := sim.Config{
		Algorithm: "rwlock-counted",
		Options:   lock.Options{TTL: 500 * time.Millisecond},
		Clients:   3,
		Roles:     []sim.Access{sim.AccessRead, sim.AccessAny, sim.AccessWrite},
		ReadRatio: 0.5,
		Duration:  300 * time.Millisecond,
		Seed:      7,
	}
	res, r := runChecked(t, cfg)
	assert.Equal(t, vocab.Safe, r.Verdict, "%+v", r)
	modes := map[int]map[string]int{0: {}, 1: {}, 2: {}}
	for _, op := range res.History.Ops {
		if op.Kind == sim.KindAcquire && op.Client >= 0 {
			modes[op.Client][op.Mode]++
		}
	}
	assert.Zero(t, modes[0]["write"], "client 0 only reads")
	assert.NotZero(t, modes[0]["read"])
	assert.Zero(t, modes[2]["read"], "client 2 only writes")
	assert.NotZero(t, modes[2]["write"])

	bad := cfg
	bad.Roles = bad.Roles[:2]
	_, err := bad.Resolve()
	require.ErrorContains(t, err, "roles: 2 given for 3 clients")
	bad = cfg
	bad.Algorithm = "setpx"
	bad.ReadRatio = 0
	_, err = bad.Resolve()
	require.ErrorContains(t, err, "roles[0] read: setpx has no read lock")
}
