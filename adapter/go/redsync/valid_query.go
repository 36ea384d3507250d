package main

import (
	"context"
	"time"

	"github.com/go-redsync/redsync/v4"
)

// validity is absent: these versions do not expose the mutex's deadline
// (Mutex.Until came with v4.4.0), so locksim applies its own arithmetic.
func validity(*redsync.Mutex, time.Time) *float64 { return nil }

// stillValid is the check these versions offer an application before it
// acts on the lock: Mutex.ValidContext, a GET of the key on every node
// that says valid when a quorum holds this mutex's value. It waits for
// every node, so a slow node can make it answer after the lock expired
// (go-redsync/redsync #72).
func stillValid(ctx context.Context, m *redsync.Mutex) (bool, error) {
	return m.ValidContext(ctx)
}
