package adapter_test

import (
	"context"
	"errors"
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

// TestExtendedEvents: the extended event's round trip. A child's report
// of an extension its library made on its own renews the lease it names,
// from the acquire's start, and reaches Options.Renewed with the deadline,
// when it was sent and the TTL it set, also when it came before the reply
// that granted the lease; one saying the key was gone extends nothing; one
// for a token the client does not hold, or after the release, reaches
// nobody; an ok one without its validity fails the request whose reply
// follows it, naming the rule.
func TestExtendedEvents(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	script, _ := filepath.Abs(filepath.Join("testdata", "extends.sh"))
	renewals := make(chan lock.Renewal, 16)
	l, err := lock.New("process:/bin/sh "+script, []redis.UniversalClient{rdb},
		lock.Options{TTL: time.Second, Renewed: func(r lock.Renewal) { renewals <- r }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Close(l) }()
	next := func() lock.Renewal {
		t.Helper()
		select {
		case r := <-renewals:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no renewal reported")
			return lock.Renewal{}
		}
	}
	before := time.Now()
	le, err := l.Acquire(context.Background(), "k")
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	ok := next()
	if ok.Err != nil || ok.Lease != le {
		t.Fatalf("first renewal %+v, want t1's, extended", ok)
	}
	// counted from the acquire's start, which lies between before and after
	if from := ok.Deadline.Add(-5 * time.Second); from.Before(before) || from.After(after) {
		t.Errorf("deadline %v is not 5 s after the acquire's start (between %v and %v)", ok.Deadline, before, after)
	}
	if !le.Deadline().Equal(ok.Deadline) {
		t.Errorf("lease deadline %v, want the extension's %v", le.Deadline(), ok.Deadline)
	}
	if ok.TTL != 4960*time.Millisecond || !ok.Sent.Equal(ok.Deadline.Add(-ok.TTL)) {
		t.Errorf("sent %v with TTL %v, want 40 ms after the acquire's start with 4.96 s", ok.Sent, ok.TTL)
	}
	gone := next()
	if gone.Lease != le || !errors.Is(gone.Err, lock.ErrNotHeld) || !gone.Deadline.IsZero() {
		t.Errorf("second renewal %+v, want t1's, refused (ErrNotHeld)", gone)
	}
	if !le.Deadline().Equal(ok.Deadline) {
		t.Errorf("a refused extension moved the lease's deadline to %v", le.Deadline())
	}
	if err := l.Release(context.Background(), le); err != nil {
		t.Fatal(err)
	}
	// the next request's round trip: the reader is past the event the
	// release was followed by; the bad event written before its reply
	// fails it
	_, err = l.Acquire(context.Background(), "other")
	if err == nil || !strings.Contains(err.Error(), "extended ok without validity_ms") {
		t.Errorf("acquire after a bad event = %v, want an error naming the missing validity_ms", err)
	}
	select {
	case r := <-renewals:
		t.Errorf("renewal %+v reported for a token not held", r)
	default:
	}
	if !le.Deadline().Equal(ok.Deadline) {
		t.Errorf("an extension after the release moved the lease's deadline to %v", le.Deadline())
	}
}
