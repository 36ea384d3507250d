package adapter_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
)

// TestChildCheck: a child whose hello says "checks" answers the client's
// validity check with its library's own (here: no longer valid, although
// the lease's deadline has time left); a child without it leaves the
// check to the lease's deadline.
func TestChildCheck(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for _, tc := range []struct {
		script    string
		own, want bool
	}{
		{"checks.sh", true, false},
		{"longline.sh", false, false},
	} {
		t.Run(tc.script, func(t *testing.T) {
			script, _ := filepath.Abs(filepath.Join("testdata", tc.script))
			l, err := lock.New("process:/bin/sh "+script, []redis.UniversalClient{rdb}, lock.Options{TTL: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lock.Close(l) }()
			le := lock.NewLease("k", "t1", lock.Exclusive, time.Now(), time.Minute)
			c, ok := l.(lock.Checker)
			if !ok {
				t.Fatalf("%T is no lock.Checker", l)
			}
			valid, own, err := c.StillValid(context.Background(), le)
			if err != nil || own != tc.own || valid != tc.want {
				t.Errorf("StillValid = %v, %v, %v; want %v, %v, nil", valid, own, err, tc.want, tc.own)
			}
		})
	}
}

// TestHelloRefused: a child that refuses hello (its library cannot run on
// these servers) is a bad setting of the run, one line, not a design that
// failed to start.
func TestHelloRefused(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	script, _ := filepath.Abs(filepath.Join("testdata", "refusehello.sh"))
	_, err := lock.New("process:/bin/sh "+script, []redis.UniversalClient{rdb}, lock.Options{TTL: time.Second})
	if err == nil || errors.Is(err, lock.ErrNoStart) || !strings.Contains(err.Error(), "lacks what the library needs") || strings.Contains(err.Error(), "\n") {
		t.Errorf("New = %v, want one line with the child's reason, not ErrNoStart", err)
	}
}
