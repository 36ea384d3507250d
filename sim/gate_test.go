package sim

import (
	"context"
	"errors"
	"testing"
)

// TestGateOpenEndedContext checks that an open gate and an ended context
// give one answer every time: the context's error. A select over both
// would pick either at random, and a run cut by its end would not replay.
func TestGateOpenEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := newGate()
	for i := range 200 {
		if err := g.Pass(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("pass %d through an open gate with an ended context: %v, want %v", i, err, context.Canceled)
		}
	}
	if err := g.Pass(context.Background()); err != nil {
		t.Fatalf("an open gate with a live context: %v, want nil", err)
	}
}
