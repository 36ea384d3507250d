// Package ownlock shows how an application puts its own Go lock under
// locksim: a design registered with lock.Register, run against built-in
// and YAML scenarios from go test (see the Example in ownlock_test.go).
//
// The lock here is a plain SET NX PX lock with a compare-and-delete
// release, written as an application would write it, plus one internal
// point, after-set, that it announces so a fault can strike there.
package ownlock

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
)

// Name is the design's name in scenarios and on the command line.
const Name = "my-lock"

// PointAfterSet is the lock's own internal point: the key is set, the
// lease not yet returned.
const PointAfterSet lock.Point = "my-lock-after-set"

// Info is what Register announces: what the lock is, and its point.
var Info = lock.Info{
	Name:     Name,
	Summary:  "SET NX PX; Lua compare-and-delete release (an application's own lock)",
	Weakness: "single master; no fencing",
	Source:   "example/ownlock",
	New: func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
		return &myLock{rdb: nodes[0], o: o}, nil
	},
	Expires: true, Extendable: true, Watchdog: true,
	Points: []lock.Point{PointAfterSet},
}

// Register adds the lock to locksim's designs; call it once, before any
// run (an init function of the test package).
func Register() error { return lock.Register(Info) }

type myLock struct {
	rdb redis.UniversalClient
	o   lock.Options // Clock and Hook come from locksim: read time only through o.Clock
}

var unlock = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
var extend = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)

func (m *myLock) Name() string { return Name }

func (m *myLock) Acquire(ctx context.Context, key string) (*lock.Lease, error) {
	token := m.o.Tokens()
	start := m.o.Clock.Now()
	ok, err := m.rdb.SetNX(ctx, key, token, m.o.TTL).Result()
	if err != nil {
		return nil, fmt.Errorf("my-lock: acquire %s: %w", key, err) // unknown outcome
	}
	if !ok {
		return nil, lock.ErrNotAcquired
	}
	l := lock.NewLease(key, token, lock.Exclusive, start,
		lock.Validity(m.o.TTL, m.o.Clock.Now().Sub(start), m.o.Drift))
	// the point: a fault may pause or crash the client right here
	if err := m.o.Hook(ctx, lock.Event{Point: PointAfterSet, Key: key, Lease: l}); err != nil {
		return nil, err
	}
	if m.o.Watchdog {
		lock.StartWatchdog(m.o, l, func(ctx context.Context) error { return m.Extend(ctx, l) })
	}
	return l, nil
}

func (m *myLock) Release(ctx context.Context, l *lock.Lease) error {
	l.StopWatchdog()
	n, err := unlock.Run(ctx, m.rdb, []string{l.Key}, l.Token).Int()
	if err != nil {
		return fmt.Errorf("my-lock: release %s: %w", l.Key, err)
	}
	if n == 0 {
		return lock.ErrNotHeld
	}
	return nil
}

func (m *myLock) Extend(ctx context.Context, l *lock.Lease) error {
	start := m.o.Clock.Now()
	n, err := extend.Run(ctx, m.rdb, []string{l.Key}, l.Token, m.o.TTL.Milliseconds()).Int()
	switch {
	case err != nil:
		return fmt.Errorf("my-lock: extend %s: %w", l.Key, err)
	case n == 0:
		return lock.ErrNotHeld
	}
	l.Renew(start, lock.Validity(m.o.TTL, m.o.Clock.Now().Sub(start), m.o.Drift))
	return nil
}
