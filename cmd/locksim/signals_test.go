package main

import (
	"bytes"
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the watcher's goroutine and the
// test's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A command that does not stop within stopGrace of the first signal is
// ended as by a second one: a SIGTERM sent once (timeout(1), a service
// manager) is not ignored by a stop that hangs.
func TestStopThatHangsEndsAfterTheGrace(t *testing.T) {
	old := stopGrace
	stopGrace = 200 * time.Millisecond
	defer func() { stopGrace = old }()
	var stderr syncBuffer
	exited := make(chan int, 1)
	ctx, stop := watchSignals(context.Background(), &stderr, func(code int) { exited <- code })
	defer stop()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the context")
	}
	select {
	case code := <-exited:
		assert.Equal(t, exitHarness, code)
		assert.Contains(t, stderr.String(), "still stopping 200ms after the signal")
	case <-time.After(10 * time.Second):
		t.Fatal("a stop that hangs was not ended after the grace")
	}
}
