package history_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
)

// boundedInput is n acquires of clients 0..clients-1 in turn.
func boundedInput(t *testing.T, n, clients int) []byte {
	t.Helper()
	var h history.History
	for i := range n {
		h.Ops = append(h.Ops, history.Op{Kind: history.KindAcquire, Client: i % clients, Key: "k",
			Call: time.Duration(i), Return: time.Duration(i + 1), Outcome: history.Fail, Reason: history.ReasonRefused})
	}
	var buf bytes.Buffer
	if err := h.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadJSONLBounded: a history over its bounds of operations or
// clients is refused at the line that goes over, naming the bound; one
// within them reads whole; a cancelled context stops the reading.
func TestReadJSONLBounded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		n, clients int
		b          history.Bounds
		limit      string
		line       int
	}{
		{"within", 10, 3, history.Bounds{Ops: 10, Clients: 3}, "", 0},
		{"unbounded", 10, 3, history.Bounds{}, "", 0},
		{"ops", 11, 3, history.Bounds{Ops: 10, Clients: 3}, "ops", 11},
		{"clients", 10, 5, history.Bounds{Ops: 10, Clients: 3}, "clients", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := history.ReadJSONLBounded(ctx, bytes.NewReader(boundedInput(t, tc.n, tc.clients)), tc.b)
			if tc.limit == "" {
				if err != nil || len(h.Ops) != tc.n {
					t.Fatalf("read %d ops, %v; want %d", len(h.Ops), err, tc.n)
				}
				return
			}
			var be *history.BoundError
			if !errors.As(err, &be) || be.Limit != tc.limit || be.Line != tc.line {
				t.Fatalf("err = %v, want the %s bound at line %d", err, tc.limit, tc.line)
			}
			if !strings.Contains(err.Error(), "at most 3 clients") && !strings.Contains(err.Error(), "more than 10 operations") {
				t.Errorf("err = %q names no bound", err)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := history.ReadJSONLBounded(cancelled, bytes.NewReader(boundedInput(t, 5000, 2)), history.Bounds{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the context's", err)
	}
}
