package main

import (
	"time"

	"github.com/go-redsync/redsync/v4"
)

// newMutex is the mutex to lock and how to read its token once locked:
// the library draws the token and reports it (Mutex.Value, from v4.1.0).
func newMutex(rs *redsync.Redsync, key string, opts []redsync.Option) (*redsync.Mutex, func() string) {
	m := rs.NewMutex(key, opts...)
	return m, m.Value
}

// adopt is the library's mutex for a token this process did not lock
// (redsync.WithValue, from v4.2.0).
func adopt(rs *redsync.Redsync, key, token string, ttl time.Duration) *redsync.Mutex {
	return rs.NewMutex(key, redsync.WithValue(token), redsync.WithExpiry(ttl))
}
