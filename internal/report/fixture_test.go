package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// builder writes hand-made histories in milliseconds; the resource's
// sequence numbers follow the order of the calls.
type builder struct {
	ops []history.Op
	seq int64
}

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func (b *builder) acquire(client int, call, ret float64, out history.Outcome, token string, validUntil float64) {
	b.ops = append(b.ops, history.Op{Kind: history.KindAcquire, Client: client, Key: "lock", Call: msd(call), Return: msd(ret),
		Outcome: out, Token: token, Deadline: msd(validUntil)})
}

func (b *builder) fencedAcquire(client int, call, ret float64, token string, fence int64, validUntil float64) {
	b.ops = append(b.ops, history.Op{Kind: history.KindAcquire, Client: client, Key: "lock", Call: msd(call), Return: msd(ret),
		Outcome: history.OK, Token: token, Fence: fence, Deadline: msd(validUntil)})
}

func (b *builder) release(client int, call float64, out history.Outcome, token string) {
	b.ops = append(b.ops, history.Op{Kind: history.KindRelease, Client: client, Key: "lock", Call: msd(call), Return: msd(call + 1),
		Outcome: out, Token: token})
}

// res adds an operation the resource applied at `at`.
func (b *builder) res(kind history.Kind, client int, at float64, token string, fence int64, out history.Outcome) {
	b.seq++
	b.ops = append(b.ops, history.Op{Kind: kind, Client: client, Key: "lock", Call: msd(at - 0.5), Return: msd(at + 0.5),
		Outcome: out, Token: token, Fence: fence, At: msd(at), Seq: b.seq})
}

func (b *builder) fault(id int, desc string, start, end float64) {
	b.ops = append(b.ops, history.Op{Kind: history.KindFault, Client: history.NoClient, Call: msd(start), Return: msd(end),
		Outcome: history.OK, Fault: desc, FaultID: id})
}

func (b *builder) probe(call, ret float64, out history.Outcome) {
	b.ops = append(b.ops, history.Op{Kind: history.KindProbe, Client: history.NoClient, Key: "lock", Call: msd(call), Return: msd(ret), Outcome: out})
}

// cycle is one uneventful acquire-enter-exit-release of client c from t.
func (b *builder) cycle(c int, t float64, token string) float64 {
	b.acquire(c, t, t+1, history.OK, token, t+501)
	b.res(history.KindEnter, c, t+2, token, 0, history.OK)
	b.res(history.KindExit, c, t+42, token, 0, history.OK)
	b.release(c, t+43, history.OK, token)
	return t + 50
}

const gcPauseDesc = "pause-client 0 (client 0 at after-check #1, for 1s, until client 1 at after-enter #1)"

// gcPause is Kleppmann's pause with three clients: a few clean cycles,
// then client 0 passes its check and pauses past its lease; client 1
// acquires and enters; the pause ends and client 0 enters too. The claim
// holds (client 0's lease ended at 551 ms, client 1's began at 651 ms);
// exclusion does not.
func gcPause() history.History {
	var b builder
	t := 0.0
	for i := range 3 {
		for c := range 3 {
			t = b.cycle(c, t, fmt.Sprintf("c%d-%d", c, i))
		}
	}
	// t = 450
	b.acquire(0, t, t+1, history.OK, "c0-9", t+101) // short TTL left: 551
	b.ops = append(b.ops, history.Op{Kind: history.KindCheck, Client: 0, Key: "lock", Call: msd(t + 1), Return: msd(t + 2), Outcome: history.OK, Token: "c0-9"})
	b.fault(1, gcPauseDesc, t+3, 662)
	for _, at := range []float64{500, 550, 600} {
		b.acquire(1, at, at+1, history.Fail, "", 0)
		b.acquire(2, at+20, at+21, history.Fail, "", 0)
	}
	b.acquire(1, 650, 651, history.OK, "c1-9", 1151)
	b.res(history.KindEnter, 1, 660, "c1-9", 0, history.OK)
	b.res(history.KindEnter, 0, 663, "c0-9", 0, history.OK) // woke up inside client 1's section
	b.acquire(2, 670, 671, history.Fail, "", 0)
	b.res(history.KindExit, 1, 760, "c1-9", 0, history.OK)
	b.release(1, 761, history.OK, "c1-9")
	b.res(history.KindExit, 0, 763, "c0-9", 0, history.OK)
	b.release(0, 764, history.Fail, "c0-9")
	t = 800
	for i := 10; i < 13; i++ {
		for _, c := range []int{2, 1, 0} {
			t = b.cycle(c, t, fmt.Sprintf("c%d-%d", c, i))
		}
	}
	b.probe(t+50, t+52, history.OK)
	return history.History{Ops: b.ops}
}

// fencedPause is the same pause under fencing: client 0's late write is
// rejected, so every check is safe.
func fencedPause() history.History {
	var b builder
	b.fencedAcquire(0, 0, 1, "c0-1", 1, 501)
	b.res(history.KindWrite, 0, 3, "c0-1", 1, history.OK)
	b.fault(1, "pause-client 0 (client 0 at after-enter #1, for 895ms)", 5, 900)
	b.fencedAcquire(1, 600, 601, "c1-1", 2, 1101)
	b.res(history.KindWrite, 1, 603, "c1-1", 2, history.OK)
	b.res(history.KindWrite, 1, 650, "c1-1", 2, history.OK)
	b.release(1, 700, history.OK, "c1-1")
	b.res(history.KindWrite, 0, 902, "c0-1", 1, history.Fail)
	b.release(0, 903, history.Fail, "c0-1")
	b.probe(1000, 1001, history.OK)
	return history.History{Ops: b.ops}
}

// stuck is a crash between SETNX and EXPIRE: nobody acquires again.
func stuck() history.History {
	var b builder
	b.acquire(0, 0, 5, history.Unknown, "", 0)
	b.fault(1, "crash-client 0 (client 0 at between-setnx-and-expire #1)", 2, 2)
	b.acquire(1, 10, 11, history.Fail, "", 0)
	b.acquire(1, 500, 501, history.Fail, "", 0)
	b.probe(1500, 2500, history.Fail)
	return history.History{Ops: b.ops}
}

// testConfig is the setup of a 2 s run of algo on five miniredis nodes;
// what the registry knows of algo is filled in as a run's producer does.
func testConfig(algo string, clients int) history.Setup {
	d := func(v time.Duration) history.Duration { return history.Duration(v) }
	s := history.Setup{
		Algorithm: algo,
		TTL:       d(500 * time.Millisecond), Drift: 0.01, ValidityCheck: true,
		RetryDelay: d(50 * time.Millisecond), NodeTimeout: d(50 * time.Millisecond),
		Backend:  "miniredis",
		Nodes:    5,
		Clients:  clients,
		Keys:     1,
		Duration: d(2 * time.Second),
		Hold:     d(40 * time.Millisecond),
		Think:    d(5 * time.Millisecond),
		Seed:     6,
		Wait:     "poll",
		Faults:   []string{},
	}
	if info, err := lock.Lookup(algo); err == nil {
		s.Registered, s.MultiNode, s.Fencing = true, info.MultiNode, info.Fencing
	}
	return s
}

var testStarted = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// newRun checks h the way the CLI does and wraps it as a Run.
func newRun(t testing.TB, scenario, algo string, h history.History, clients int, expected string) Run {
	t.Helper()
	r := checker.Check(h, checker.Config{Verbose: true})
	r.Elapsed = 3 * time.Millisecond // keep the summary reproducible
	return Run{
		Scenario:  scenario,
		Algorithm: algo,
		Setup:     testConfig(algo, clients),
		History:   h,
		Started:   testStarted,
		Wall:      2100 * time.Millisecond,
		Warnings:  checker.Warnings(h, clients),
		Check:     r,
		Expected:  vocab.Verdict(expected),
		Machine:   "linux/amd64, 2 cores",
	}
}

func gcPauseRun(t testing.TB) Run {
	in := newRun(t, "gc-pause-after-check", "redlock", gcPause(), 3, "unsafe")
	in.ExpectedChecks = map[string]vocab.Verdict{"exclusion": "unsafe", "claim": "safe"}
	in.ScenarioYAML = []byte("name: gc-pause-after-check\nalgorithm: [redlock]\n")
	in.Notes = []string{"fault 3 crash-client 0 (client 0 at before-release #1) never fired"}
	return in
}

// busy is a longer run with six clients, overlapping faults and two
// violations: a clock jump on a node lets client 4 acquire while client 3
// holds the lock (claim and exclusion unsafe), and a late exit of client 1
// overlaps client 5. It exercises the chart's label stacking.
func busy() history.History {
	var b builder
	t := 0.0
	n := 0
	next := func(c int) {
		n++
		t = b.cycle(c, t, fmt.Sprintf("c%d-%d", c, n))
		b.acquire((c+1)%6, t-30, t-29, history.Fail, "", 0)
	}
	for t < 1700 {
		next(n % 6)
	}
	b.fault(1, "pause-client 2 (at 800ms, for 700ms)", 800, 1500)
	b.fault(2, "partition {c0 c1} {n0..n4} (at 1200ms, for 100ms)", 1200, 1300)
	b.fault(3, "clock-jump-node 3 by 2s (client 3 at after-enter #9)", 1752, 1752)
	b.fault(4, "kill-node 2 (at 2000ms, restart after 10ms)", 2000, 2010)
	// client 3 holds; the jump expires its key early; client 4 gets it
	b.acquire(3, t, t+1, history.OK, "c3-x", t+501)
	b.res(history.KindEnter, 3, t+2, "c3-x", 0, history.OK)
	b.acquire(4, t+10, t+11, history.OK, "c4-x", t+511)
	b.res(history.KindEnter, 4, t+12, "c4-x", 0, history.OK)
	b.res(history.KindExit, 3, t+42, "c3-x", 0, history.OK)
	b.release(3, t+43, history.Fail, "c3-x")
	b.res(history.KindExit, 4, t+52, "c4-x", 0, history.OK)
	b.release(4, t+53, history.OK, "c4-x")
	t += 60
	for t < 2800 {
		next(n % 6)
	}
	b.probe(t+100, t+130, history.OK)
	return history.History{Ops: b.ops}
}
