package adapter_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/adapter"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
)

// TestProtocolBreaches: a child that breaks the protocol is told so in
// one message naming the rule, at once: a reply without its request's id
// (hello's included), a reply line over the protocol's 1 MiB.
func TestProtocolBreaches(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for _, tc := range []struct {
		name, script, want string
		atHello            bool
	}{
		{"reply without id", "noid.sh", "hello without its id", true},
		{"reply line over 1 MiB", "longline.sh", "line longer than 1 MiB", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, _ := filepath.Abs(filepath.Join("testdata", tc.script))
			start := time.Now()
			l, err := lock.New("process:/bin/sh "+script, []redis.UniversalClient{rdb}, lock.Options{TTL: time.Second})
			if tc.atHello {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("New = %v, want an error naming %q", err, tc.want)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = lock.Close(l) }()
				_, err = l.Acquire(context.Background(), "k")
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Acquire = %v, want an error naming %q", err, tc.want)
				}
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the breach took %v to be told", took)
			}
		})
	}
}

// TestAdapterFromTheDocs: an adapter written from the package's protocol
// description alone (testdata/fromdocs.py: SET NX PX, compare-and-delete)
// runs a scenario and gets the verdict expected of any design.
func TestAdapterFromTheDocs(t *testing.T) {
	requireDesign(t, "redis-py") // the same needs: python3 with redis
	script, _ := filepath.Abs(filepath.Join("testdata", "fromdocs.py"))
	algo := "process:" + adapter.Python + " " + script
	s, err := scenarios.Lookup("crash-holder")
	if err != nil {
		t.Fatal(err)
	}
	o := executePlayed(t, s, algo, "")
	if !o.AsExpected {
		t.Errorf("%s: verdict %s %v, expected %s; not played %v (report %s)", algo, o.Verdict, o.Checks, o.Expected, o.Unplayed, o.Dir)
	}
}
