// Package vtime runs functions in virtual time.
//
// A function run by a Host runs in a testing/synctest bubble: inside it,
// time.Now, timers, time.Sleep and context deadlines follow a fake clock
// that jumps forward whenever every goroutine of the bubble is blocked on
// something inside the bubble (a channel, a timer, a net.Pipe). A simulated
// run that spends most of its time waiting (TTLs, pauses, holds, retries)
// then costs only the CPU its goroutines use: a 3 s scenario takes
// milliseconds.
//
// What a bubble demands of the code inside it:
//   - no real I/O to wait on: a socket's wait is not durable, so time would
//     never advance. Redis nodes are reached through in-memory
//     connections made of channels (package sim's memPipe), never through
//     a listener.
//   - nothing made outside it: a channel, timer or context made outside a
//     bubble is not durable inside it, and a bubble's channel touched from
//     outside panics. Run therefore hands f a context of the bubble's own,
//     cancelled when the caller's is.
//   - no goroutine left behind: Run returns when every goroutine f started
//     has ended; one still blocked after f returns is a deadlock, and
//     synctest panics.
//
// A bubble's clock fixes when things happen, not the order in which the
// goroutines woken at one instant run. A Scheduler (sched.go) takes that
// order over: code that posts every event able to make it progress to the
// scheduler, under keys that name the events the same way on every run,
// replays exactly for one seed.
//
// synctest.Test needs a *testing.T. Inside go test, ForTest makes a Host of
// the test's. A program gets one from Main, which runs the program as the
// single test of a testing.Main: testing.Main is the exported entry point
// kept for programs that simulate go test, it needs no generated code, and
// it gives a real *testing.T whose t.Run can start one bubble per run, from
// any goroutine, as many at once as the program likes. Main parses the
// testing flags itself (none are given), so the program's own command line
// is its own, and it exits with the program's code before testing prints
// anything.
package vtime

import (
	"context"
	"errors"
	"flag"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Host starts bubbles.
type Host struct {
	t *testing.T
}

// ForTest returns a Host that runs each bubble as a subtest of t. t must
// still be running when Run is called.
func ForTest(t *testing.T) Host { return Host{t: t} }

// Valid reports whether h can start bubbles (the zero Host cannot).
func (h Host) Valid() bool { return h.t != nil }

// ErrNoHost is returned by Run on the zero Host: a program that wants
// virtual time must run under Main, a test must use ForTest.
var ErrNoHost = errors.New("virtual time needs a host (vtime.Main in a program, vtime.ForTest in a test)")

// pollEvery is how often, in virtual time, a bubble looks whether its
// caller's context ended. A bubble cannot wait on the caller's channel
// (that wait would not be durable, and its clock would stall), so it polls.
const pollEvery = 20 * time.Millisecond

// drainAfter is how long, in virtual time, a bubble waits after its
// function returned for the goroutines left behind to end.
const drainAfter = 2 * time.Second

var bubbleSeq atomic.Int64

// Run runs f in a new bubble and returns when f and every goroutine it
// started have returned. f's context is the bubble's own and is cancelled
// soon after ctx is (within pollEvery of virtual time).
func (h Host) Run(ctx context.Context, name string, f func(ctx context.Context)) error {
	if h.t == nil {
		return ErrNoHost
	}
	if name == "" {
		name = "bubble"
	}
	ran := false
	h.t.Run(name, func(t *testing.T) {
		synctest.Test(t, func(*testing.T) {
			inner, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				tick := time.NewTicker(pollEvery)
				defer tick.Stop()
				for {
					select {
					case <-done:
						return
					case <-tick.C:
						if ctx.Err() != nil {
							cancel()
							return
						}
					}
				}
			}()
			defer cancel()
			stopPolling := sync.OnceFunc(func() { close(done) })
			defer stopPolling()
			f(inner)
			stopPolling()
			// Goroutines that libraries leave behind for a while after
			// their owner closed (go-redis retries a refused dial in a
			// goroutine that sleeps 1 s before it sees its pool closed)
			// would deadlock the bubble once f has returned, when its
			// clock no longer moves: let them end. In virtual time the
			// wait costs nothing.
			time.Sleep(drainAfter)
			ran = true
		})
	})
	if !ran {
		return errors.New("virtual time: the bubble failed before its function returned")
	}
	return nil
}

type hostKey struct{}

// NewContext returns ctx carrying h, for code deep in a call chain that
// may run in virtual time.
func NewContext(ctx context.Context, h Host) context.Context {
	return context.WithValue(ctx, hostKey{}, h)
}

// FromContext returns the Host ctx carries, or the zero Host.
func FromContext(ctx context.Context) Host {
	h, _ := ctx.Value(hostKey{}).(Host)
	return h
}

// Main runs program with a Host and exits the process with its return
// value. It must be called from main, once, before anything else uses the
// standard flag package's command line.
func Main(program func(h Host) int) {
	testing.Init()
	// The testing flags are parsed here, with none set, so that
	// testing.Main does not parse the program's command line as its own.
	if err := flag.CommandLine.Parse([]string{"-test.run=^program$"}); err != nil {
		os.Stderr.WriteString("vtime: " + err.Error() + "\n")
		os.Exit(3)
	}
	testing.Main(matchAll, []testing.InternalTest{{
		Name: "program",
		F: func(t *testing.T) {
			// Exit here, before testing reports the test as passed on
			// stdout: the program's output is all the user sees.
			os.Exit(program(Host{t: t}))
		},
	}}, nil, nil)
}

func matchAll(pat, str string) (bool, error) { return true, nil }
