package locktest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManualClockWakesOnlyWhenAdvanced(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewManualClock(start)
	done := make(chan error, 1)
	go func() { done <- c.Sleep(context.Background(), 100*time.Millisecond) }()
	require.Eventually(t, func() bool { return c.Sleeping() == 1 }, time.Second, time.Millisecond)
	c.Advance(99 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("woke before its time")
	case <-time.After(20 * time.Millisecond):
	}
	c.Advance(time.Millisecond)
	require.NoError(t, <-done)
	assert.Equal(t, start.Add(100*time.Millisecond), c.Now())
	assert.Zero(t, c.Sleeping())

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	require.Eventually(t, func() bool { return c.Sleeping() == 1 }, time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, c.Sleeping(), "a cancelled sleeper is forgotten")
}
