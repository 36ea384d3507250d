package checker

import (
	"testing"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

func TestFenceOrder(t *testing.T) {
	acq := func(c int, call, ret time.Duration, fence int64) history.Op {
		return history.Op{Kind: history.KindAcquire, Client: c, Key: "k", Call: call, Return: ret, Outcome: history.OK,
			Token: string(rune('a' + c)), Fence: fence, Deadline: ret + 10*ms}
	}
	for _, tc := range []struct {
		name string
		ops  []history.Op
		want vocab.Verdict
	}{
		{"growing", []history.Op{acq(0, 0, ms, 1), acq(1, 20*ms, 21*ms, 2), acq(2, 40*ms, 41*ms, 3)}, vocab.Safe},
		{"backwards after the larger one returned", []history.Op{acq(0, 0, ms, 2), acq(1, 20*ms, 21*ms, 1)}, vocab.Unsafe},
		// drawn at the servers in either order: proves nothing
		{"backwards while both were in flight", []history.Op{acq(0, 0, 30*ms, 2), acq(1, ms, 21*ms, 1)}, vocab.Safe},
		{"repeated while both were in flight", []history.Op{acq(0, 0, 30*ms, 2), acq(1, ms, 21*ms, 2)}, vocab.Unsafe},
		{"the same lease again", []history.Op{acq(0, 0, ms, 2), acq(0, 2*ms, 3*ms, 2), acq(1, 20*ms, 21*ms, 3)}, vocab.Safe},
	} {
		c := Check(history.History{Ops: tc.ops}, Config{Fencing: true}).Check(vocab.CheckFencing)
		if c.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, c.Verdict, c.Detail, tc.want)
		}
		if c.Verdict == vocab.Unsafe && len(c.Witnesses) == 0 {
			t.Errorf("%s: unsafe without a witness", tc.name)
		}
	}
}
