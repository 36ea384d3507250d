package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/history"
)

func TestWarnings(t *testing.T) {
	ms := time.Millisecond
	acq := func(c int, at time.Duration, o history.Outcome, err string) history.Op {
		return history.Op{Kind: history.KindAcquire, Client: c, Key: "k", Call: at, Return: at + ms, Outcome: o, Token: "t", Deadline: at + 500*ms, Err: err}
	}
	fault := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 0, Return: 100 * ms, Fault: "partition c1<->n0", FaultID: 1}
	probe := history.Op{Kind: history.KindProbe, Client: history.NoClient, Call: 200 * ms, Return: 201 * ms, Outcome: history.OK}

	// Every client acquired: nothing to say.
	h := history.History{Ops: []history.Op{acq(0, 0, history.OK, ""), acq(1, 10*ms, history.OK, ""), probe}}
	assert.Empty(t, Warnings(h, 2))

	// Client 1 only failed, under the partition; client 2 never tried.
	h = history.History{Ops: []history.Op{fault,
		acq(0, 0, history.OK, ""),
		acq(1, 10*ms, history.Unknown, "setpx: acquire \"k\": outcome unknown: i/o timeout"),
		acq(1, 20*ms, history.Fail, ""),
		probe,
	}}
	assert.Equal(t, []string{
		`client 1 never acquired the lock (2 attempts: 1 failed, 1 with unknown outcome; most often "i/o timeout"; fault 1 partition c1<->n0 was on during every one of them): the run tested only the other clients' cycles`,
		"client 2 never tried to acquire the lock: the run tested only the other clients' cycles",
	}, Warnings(h, 3))

	// No acquire succeeded: one warning for the run, not one per client.
	h = history.History{Ops: []history.Op{
		acq(0, 0, history.Fail, ""), acq(1, 150*ms, history.Fail, ""), fault, probe,
	}}
	w := Warnings(h, 2)
	assert.Len(t, w, 1)
	assert.Contains(t, w[0], "no acquire succeeded (2 attempts: all 2 failed)")

	// Every attempt under the fault failed and nobody held the lock then;
	// after it, the lock was taken: the fault is named.
	h = history.History{Ops: []history.Op{fault,
		acq(0, 10*ms, history.Unknown, "x: i/o timeout"), acq(1, 50*ms, history.Fail, ""),
		acq(0, 120*ms, history.OK, ""), acq(1, 150*ms, history.OK, ""), probe,
	}}
	assert.Equal(t, []string{
		`no acquire succeeded while fault 1 partition c1<->n0 was on (0s–100ms) and nobody held the lock then (2 attempts: 1 failed, 1 with unknown outcome; most often "i/o timeout"): the run did not test the lock under that fault`,
	}, Warnings(h, 2))
	// A holder's lease during the fault explains the refusals: no warning.
	h.Ops[2] = acq(1, 50*ms, history.OK, "")
	assert.Empty(t, Warnings(h, 2))

	// A client whose acquire its crash cut short: the crash is the
	// scenario's, not the lock failing.
	h = history.History{Ops: []history.Op{
		acq(0, 0, history.Unknown, "setnx-expire: acquire \"k\": client crashed"), acq(1, 10*ms, history.OK, ""), probe,
	}}
	assert.Empty(t, Warnings(h, 2))

	// Nobody even tried.
	assert.Equal(t, []string{"no client made an acquire attempt: the run tested nothing"}, Warnings(history.History{Ops: []history.Op{probe}}, 2))
	assert.Empty(t, Warnings(history.History{}, 0), "no clients, nothing to say")
}
