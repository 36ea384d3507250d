package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/locksim/locksim/sim/node"
)

// stopGrace bounds how long a command may take to stop after the first
// signal: reporting what was recorded takes seconds (adapter children get
// one bounded grace period, drawing stops with the context).
var stopGrace = 30 * time.Second

// watchSignals cancels the returned context on the first SIGINT or
// SIGTERM (the same for both: clients stop, faults heal, nodes and temp
// dirs go, the partial run is reported as incomplete, exit 3). A second
// one means the user will not wait for that: every redis-server is killed
// and exit(exitHarness) is called at once, without a report. So does a
// command still running stopGrace after the first: a stop that hangs
// (a run in virtual time whose clock no longer moves never sees the
// cancellation) must not outlive a SIGTERM sent once, as by timeout(1) or
// a service manager. stop unregisters the handler.
func watchSignals(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "locksim: %s: interrupted; stopping and reporting what was recorded (send it again to exit at once)\n", signalName(sig))
			cancel()
		case <-done:
			return
		}
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case sig := <-sigs:
			node.KillAll()
			fmt.Fprintf(stderr, "locksim: second %s: killed every redis-server; exiting without a report\n", signalName(sig))
			exit(exitHarness)
		case <-grace.C:
			node.KillAll()
			fmt.Fprintf(stderr, "locksim: still stopping %v after the signal: killed every redis-server; exiting without a report\n", stopGrace)
			exit(exitHarness)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		switch s {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		}
	}
	return sig.String()
}
