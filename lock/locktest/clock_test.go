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
	c.WaitSleeping(t, 1)
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
	c.WaitSleeping(t, 1)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, c.Sleeping(), "a cancelled sleeper is forgotten")
}

func TestManualClockSteps(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewManualClock(start)
	assert.Equal(t, start, c.Now(), "no step: the clock stands still")
	assert.Equal(t, start, c.Now())
	c.SetStep(10 * time.Millisecond)
	assert.Equal(t, start, c.Peek())
	assert.Equal(t, start, c.Now())
	assert.Equal(t, start.Add(10*time.Millisecond), c.Peek(), "each reading moves the clock on by the step")
	assert.Equal(t, start.Add(10*time.Millisecond), c.Now())
	assert.Equal(t, start.Add(20*time.Millisecond), c.Now())

	// A stepping clock wakes its sleepers too.
	done := make(chan error, 1)
	go func() { done <- c.Sleep(context.Background(), 15*time.Millisecond) }()
	c.WaitSleeping(t, 1)
	c.Now()
	c.Now()
	require.NoError(t, <-done)
}

func TestManualClockAdvanceOnSleep(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewManualClock(start)
	c.SetAdvanceOnSleep(true)
	require.NoError(t, c.Sleep(context.Background(), time.Second), "returns at once")
	assert.Equal(t, start.Add(time.Second), c.Now(), "the sleep moved the clock")
	assert.Zero(t, c.Sleeping())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Sleep(ctx, time.Second), context.Canceled)
	assert.Equal(t, start.Add(time.Second), c.Now(), "a cancelled sleep leaves the clock")
}
