package main

import (
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/go-redsync/redsync/v4"
)

// newMutex is the mutex to lock and how to read its token once locked.
// These versions (before v4.1.0) do not report the token, so the adapter
// draws it through WithGenValueFunc, as the library's own genValue does:
// 16 random bytes in base64.
func newMutex(rs *redsync.Redsync, key string, opts []redsync.Option) (*redsync.Mutex, func() string) {
	var value string
	gen := func() (string, error) {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		value = base64.StdEncoding.EncodeToString(b)
		return value, nil
	}
	m := rs.NewMutex(key, append(opts, redsync.WithGenValueFunc(gen))...)
	return m, func() string { return value }
}

// adopt is nil: these versions (before v4.2.0) cannot make a mutex for a
// token they did not lock.
func adopt(*redsync.Redsync, string, string, time.Duration) *redsync.Mutex { return nil }
