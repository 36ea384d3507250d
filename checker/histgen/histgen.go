// Package histgen makes large synthetic histories for the checker's
// benchmarks and for the tests of `locksim check` on a large run
// directory: the shape of a long run with many clients, built without
// running one.
package histgen

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

const ms = time.Millisecond

// ManyClients is a history of n operations in which clients come and go:
// each round one of clients wins the lock (acquire, enter, exit, release)
// while three others drawn at random fail an attempt, so that a client
// count near n/6 makes most clients appear once or twice. With overlapAt
// >= 0, in that round a second client acquires the lock while the winner
// holds it and enters the resource while the winner is inside: exactly one
// round breaks exclusion. The history has exactly n operations, in
// completion order.
func ManyClients(seed uint64, n, clients, overlapAt int) history.History {
	rng := rand.New(rand.NewPCG(seed, 11))
	ops := make([]history.Op, 0, n+16)
	t := time.Duration(0)
	var seq int64
	res := func(k history.Kind, c int, token string, at time.Duration) history.Op {
		seq++
		return history.Op{Kind: k, Client: c, Key: "lock", Call: at - ms/4, Return: at + ms/4,
			Outcome: history.OK, Token: token, At: at, Seq: seq}
	}
	for round := 0; len(ops) < n; round++ {
		w := rng.IntN(clients)
		token := fmt.Sprintf("c%d-%d", w, round)
		for range 3 {
			c := rng.IntN(clients)
			call := t + time.Duration(rng.IntN(5))*ms
			ops = append(ops, history.Op{Kind: history.KindAcquire, Client: c, Key: "lock", Call: call, Return: call + ms,
				Outcome: history.Fail, Reason: history.ReasonRefused})
		}
		ops = append(ops, history.Op{Kind: history.KindAcquire, Client: w, Key: "lock", Call: t, Return: t + ms,
			Outcome: history.OK, Token: token, Deadline: t + 501*ms})
		ops = append(ops, res(history.KindEnter, w, token, t+2*ms))
		if round == overlapAt {
			o := (w + 1) % clients
			otoken := fmt.Sprintf("c%d-%d", o, round)
			ops = append(ops,
				history.Op{Kind: history.KindAcquire, Client: o, Key: "lock", Call: t + ms + ms/2, Return: t + 2*ms + ms/2,
					Outcome: history.OK, Token: otoken, Deadline: t + 502*ms},
				res(history.KindEnter, o, otoken, t+3*ms),
				res(history.KindExit, o, otoken, t+4*ms),
				history.Op{Kind: history.KindRelease, Client: o, Key: "lock", Call: t + 4*ms + ms/2, Return: t + 5*ms,
					Outcome: history.OK, Token: otoken})
		}
		ops = append(ops, res(history.KindExit, w, token, t+6*ms))
		ops = append(ops, history.Op{Kind: history.KindRelease, Client: w, Key: "lock", Call: t + 7*ms, Return: t + 8*ms,
			Outcome: history.OK, Token: token})
		t += 10 * ms
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	return history.History{Ops: ops[:n]}
}
