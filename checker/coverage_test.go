package checker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/checker/histgen"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
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

// An acquire sent while a fault was on but granted only after its heal
// got the lock after the fault: the fault is still named as one under
// which no acquire succeeded. One granted while the fault was on clears
// it.
func TestWarningsCountTheGrantNotTheCall(t *testing.T) {
	ms := time.Millisecond
	fault := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 100 * ms, Return: 300 * ms, Fault: "delay 250ms", FaultID: 2,
		Target: &history.Target{Kind: vocab.KindDelay, Link: true}}
	late := history.Op{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 150 * ms, Return: 400 * ms, Outcome: history.OK, Token: "a"}
	probe := history.Op{Kind: history.KindProbe, Client: history.NoClient, Call: 900 * ms, Return: 901 * ms, Outcome: history.OK}
	h := history.History{Ops: []history.Op{fault, late, probe}}
	assert.Equal(t, []string{
		"no acquire succeeded while fault 2 delay 250ms was on (100ms–300ms) and nobody held the lock then (1 attempt: all 1 granted only after its heal): the run did not test the lock under that fault (is the delay longer than node_timeout?)",
	}, Warnings(h, 1))

	refused := history.Op{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 120 * ms, Return: 130 * ms, Outcome: history.Fail, Err: "lock not acquired"}
	h = history.History{Ops: []history.Op{refused, fault, late, probe}}
	assert.Contains(t, Warnings(h, 1)[0], `(2 attempts: 1 granted only after its heal, 1 failed; most often "lock not acquired")`)

	inTime := late
	inTime.Return = 250 * ms
	assert.Empty(t, Warnings(history.History{Ops: []history.Op{fault, inTime, probe}}, 1))
}

// The harness's errors on fault records and the faults the run's end
// healed before their own end are warnings of their own; a crash, which
// nothing heals, and a partition meant to last the run are not said to be
// still on.
func TestWarningsHarnessErrorsAndFaultsAtTheEnd(t *testing.T) {
	ms := time.Millisecond
	acq := history.Op{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: ms, Outcome: history.OK, Token: "a"}
	rejoin := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 100 * ms, Return: 900 * ms, Outcome: history.Unknown,
		Fault: "failover 0 (at 100ms)", FaultID: 1, Target: &history.Target{Kind: "failover", Nodes: []int{0}},
		Err: "rejoin: node 0: wipe data: open /tmp/x/node0: no such file or directory", AtEnd: true, Cut: true}
	failed := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 50 * ms, Return: 50 * ms, Outcome: history.Fail,
		Fault: "kill-node 1 (at 50ms)", FaultID: 2, Target: &history.Target{Kind: "kill-node", Nodes: []int{1}}, Err: "kill: no such process"}
	pause := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 500 * ms, Return: 900 * ms, Outcome: history.OK,
		Fault: "pause-client 0 (at 500ms)", FaultID: 3, Target: &history.Target{Kind: "pause-client", Clients: []int{0}}, AtEnd: true, Cut: true}
	partition := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 10 * ms, Return: 900 * ms, Outcome: history.OK,
		Fault: "partition [c0] | [nodes] (at 10ms)", FaultID: 5, Target: &history.Target{Kind: "partition", Link: true}, AtEnd: true}
	crash := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 600 * ms, Return: 900 * ms, Outcome: history.OK,
		Fault: "crash-client 0 (at 600ms)", FaultID: 4, Target: &history.Target{Kind: "crash-client", Clients: []int{0}}, AtEnd: true}
	h := history.History{Ops: []history.Op{acq, failed, rejoin, pause, crash, partition}}
	assert.Equal(t, []string{
		"harness error: fault 2 kill-node 1 (at 50ms) did not start: kill: no such process",
		"harness error: healing fault 1 failover 0 (at 100ms) at 900ms failed: rejoin: node 0: wipe data: open /tmp/x/node0: no such file or directory",
		"fault 1 still on at the run's end (900ms), before its own end: failover 0 (at 100ms); only the liveness probe saw what followed its heal",
		"fault 3 still on at the run's end (900ms), before its own end: pause-client 0 (at 500ms); only the liveness probe saw what followed its heal",
	}, Warnings(h, 1))
}

// CheckWithWarnings says what Check and Warnings say apart, on histories
// with faults and without, many clients or few, and a saved client count
// above the clients the history names.
func TestCheckWithWarningsAgrees(t *testing.T) {
	for name, h := range map[string]history.History{
		"realistic":        realisticHistory(3, 20_000, 8, -1),
		"realistic-unsafe": realisticHistory(3, 20_000, 8, 300),
		"many-clients":     histgen.ManyClients(2, 20_000, 5000, -1),
	} {
		t.Run(name, func(t *testing.T) {
			for _, clients := range []int{0, 5000, 6000} {
				want, wantWarnings := Check(h, Config{}), Warnings(h, clients)
				got, gotWarnings := CheckWithWarnings(h, Config{}, clients)
				assert.Equal(t, want.Verdict, got.Verdict)
				assert.Equal(t, want.Checks, got.Checks)
				assert.Equal(t, wantWarnings, gotWarnings)
			}
		})
	}
}

// Clients far apart (an index beyond twice the history's length) are
// tallied in a map rather than a slice of that size, and warned about as
// densely numbered clients are: by client, the clients the run had but
// the history never names among them, a crashed client's cut attempt not
// counted.
func TestWarningsSparseClients(t *testing.T) {
	far := 1 << 40
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 1, Outcome: history.OK, Token: "t0"},
		{Kind: history.KindAcquire, Client: far, Key: "k", Call: 1, Return: 2, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindAcquire, Client: 7, Key: "k", Call: 1, Return: 3, Outcome: history.Unknown, Err: "x: client crashed"},
		{Kind: history.KindRelease, Client: 0, Key: "k", Call: 4, Return: 5, Outcome: history.OK, Token: "t0"},
	}}
	got := Warnings(h, 3)
	want := []string{
		"client 1 never tried to acquire the lock: the run tested only the other clients' cycles",
		"client 2 never tried to acquire the lock: the run tested only the other clients' cycles",
		fmt.Sprintf("client %d never acquired the lock (1 attempt: all 1 failed): the run tested only the other clients' cycles", far),
	}
	assert.Equal(t, want, got)
	h.Ops[1].Client = 9 // within reach: the slice
	want[2] = "client 9 never acquired the lock (1 attempt: all 1 failed): the run tested only the other clients' cycles"
	assert.Equal(t, want, Warnings(h, 3))
}
