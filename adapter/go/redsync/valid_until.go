package main

import (
	"context"
	"time"

	"github.com/go-redsync/redsync/v4"
)

// validity is the library's own deadline (Mutex.Until, from v4.4.0) from
// t0, when the request was read.
func validity(m *redsync.Mutex, t0 time.Time) *float64 {
	v := float64(m.Until().Sub(t0)) / float64(time.Millisecond)
	return &v
}

// stillValid is the check an application makes before acting on the lock
// at these versions: the clock against Mutex.Until, the deadline acquire
// and extend computed (Valid is deprecated for it, go-redsync/redsync #72).
func stillValid(_ context.Context, m *redsync.Mutex) (bool, error) {
	return time.Now().Before(m.Until()), nil
}
