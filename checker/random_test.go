package checker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// randomRun simulates a small, sloppy world and returns its history: 1-4
// sequential clients on 1-2 keys, a lock service that usually grants one
// lease at a time and sometimes does not, client clocks that jump and
// change rate, acquires that are refused or end unknown, watchdog renewals
// that run beside their client, clients that overstay their lease, messages
// to the resource delayed (so the resource applies them anywhere inside
// the client's interval), clients that crash with a message in flight, and
// fenced runs with a resource that sometimes fails at its job. Every
// operation's true times are consistent (call <= landing <= return), as a
// correct recorder makes them; whether the locks were safe is up to
// chance, so both verdicts are common.
func randomRun(rng *rand.Rand) (history.History, Config) {
	fenced := rng.IntN(3) == 0
	clients := 1 + rng.IntN(4)
	keys := []string{"a", "b"}[:1+rng.IntN(2)]
	rw := !fenced && rng.IntN(3) == 0
	var ops []history.Op
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }

	// the resource: a serial log with landing instants
	type landing struct {
		op *history.Op
	}
	var seq int64
	var landed []landing
	highest := map[string]int64{}
	fence := map[string]int64{}

	// clocks: per client, records of jumps and rates at random instants
	type seg struct {
		at, reading time.Duration
		rate        float64
	}
	course := map[int][]seg{}
	for c := range clients {
		course[c] = []seg{{0, 0, 1}}
		if rng.IntN(3) != 0 {
			continue
		}
		t := time.Duration(0)
		for range 1 + rng.IntN(3) {
			t += ms(rng.IntN(400))
			last := course[c][len(course[c])-1]
			read := last.reading + time.Duration(float64(t-last.at)*last.rate)
			s := seg{at: t, reading: read, rate: last.rate}
			switch rng.IntN(3) {
			case 0:
				s.reading += ms(rng.IntN(1200) - 600)
			case 1:
				s.rate = []float64{0.5, 0.9, 1, 1.5, 2}[rng.IntN(5)]
			default:
				s.reading, s.rate = t, 1 // healed
			}
			course[c] = append(course[c], s)
			ops = append(ops, history.Op{Kind: history.KindClock, Client: c, Call: t, Return: t, Outcome: history.OK, Reading: s.reading, Rate: s.rate})
		}
	}
	reading := func(c int, t time.Duration) time.Duration {
		segs := course[c]
		i := len(segs) - 1
		for segs[i].at > t {
			i--
		}
		return segs[i].reading + time.Duration(float64(t-segs[i].at)*segs[i].rate)
	}

	// the lock service's idea of who holds each key, and until when (true
	// time); it errs now and then
	type grant struct {
		client int
		token  string
		read   bool
		until  time.Duration
	}
	held := map[string][]grant{}
	free := func(key string, t time.Duration, c int, read bool) bool {
		for _, g := range held[key] {
			if g.until > t && g.client != c && !(g.read && read) {
				return false
			}
		}
		return true
	}

	type clientState struct {
		t       time.Duration
		crashed bool
	}
	cs := make([]clientState, clients)
	for c := range cs {
		cs[c].t = ms(rng.IntN(50))
	}
	resourceOp := func(c int, kind history.Kind, key, token, mode string, f int64, call time.Duration, crash bool) time.Duration {
		delay := ms(1 + rng.IntN(3))
		if rng.IntN(8) == 0 {
			delay = ms(50 + rng.IntN(600))
		}
		at := call + delay
		op := history.Op{Kind: kind, Client: c, Key: key, Token: token, Mode: mode, Fence: f, Call: call, At: at, Outcome: history.OK}
		if fenced {
			op.Kind = history.KindWrite
			ok := f >= highest[key]
			if rng.IntN(10) == 0 {
				ok = !ok // a resource that does not do its job
			}
			if ok {
				highest[key] = max(highest[key], f)
			} else {
				op.Outcome = history.Fail
			}
		}
		op.Return = at + ms(1+rng.IntN(3))
		if crash {
			op.Unacked, op.Return = true, at
		}
		ops = append(ops, op)
		landed = append(landed, landing{&ops[len(ops)-1]})
		return op.Return
	}
	_ = landed
	for range 4 + rng.IntN(14) {
		c := rng.IntN(clients)
		st := &cs[c]
		if st.crashed {
			continue
		}
		key := keys[rng.IntN(len(keys))]
		read := rw && rng.IntN(2) == 0
		mode := "write"
		if read {
			mode = "read"
		}
		call := st.t
		ret := call + ms(1+rng.IntN(5))
		acq := history.Op{Kind: history.KindAcquire, Client: c, Key: key, Mode: mode, Call: call, Return: ret}
		switch {
		case rng.IntN(8) == 0:
			acq.Outcome, acq.Return, acq.Err = history.Unknown, call+ms(30), "timeout"
			ops = append(ops, acq)
			st.t = acq.Return + ms(rng.IntN(30))
			continue
		case !free(key, call, c, read) && rng.IntN(6) != 0:
			acq.Outcome = history.Fail
			ops = append(ops, acq)
			st.t = ret + ms(rng.IntN(60))
			continue
		}
		ttl := ms(100 + rng.IntN(400))
		token := fmt.Sprintf("c%d-%d", c, len(ops))
		if rng.IntN(5) == 0 && len(held[key]) > 0 {
			token = held[key][len(held[key])-1].token // a reentrant owner token, or a bug
		}
		acq.Outcome, acq.Token = history.OK, token
		if rng.IntN(8) != 0 {
			acq.Deadline = reading(c, call) + ttl - ms(rng.IntN(20))
		}
		if fenced {
			fence[key]++
			acq.Fence = fence[key]
			if rng.IntN(8) == 0 {
				acq.Fence = max(1, fence[key]-int64(rng.IntN(2))) // a lost counter
			}
		}
		ops = append(ops, acq)
		held[key] = append(held[key], grant{c, token, read, call + ttl})
		t := ret + ms(rng.IntN(5))
		// nested acquire of the same token, sometimes after a long pause
		if rng.IntN(6) == 0 {
			t += ms(rng.IntN(700))
			n := history.Op{Kind: history.KindAcquire, Client: c, Key: key, Mode: mode, Call: t, Return: t + ms(2), Outcome: history.OK,
				Token: token, Fence: acq.Fence}
			if acq.Deadline > 0 {
				n.Deadline = reading(c, t) + ttl
			}
			ops = append(ops, n)
			ops = append(ops, history.Op{Kind: history.KindRelease, Client: c, Key: key, Mode: mode, Call: t + ms(5), Return: t + ms(6),
				Outcome: history.OK, Token: token})
			t += ms(7)
		}
		// a watchdog renewal beside the client, sometimes past the release
		hold := ms(rng.IntN(600))
		if rng.IntN(4) == 0 && acq.Deadline > 0 {
			rc := t + ms(rng.IntN(int(hold/time.Millisecond)+20))
			e := history.Op{Kind: history.KindExtend, Client: c, Key: key, Mode: mode, Call: rc, Return: rc + ms(1+rng.IntN(20)),
				Outcome: history.OK, Token: token, Deadline: reading(c, rc) + ttl}
			if rng.IntN(4) == 0 {
				e.Outcome, e.Deadline = history.Fail, 0
			}
			ops = append(ops, e)
		}
		crash := rng.IntN(10) == 0
		t = resourceOp(c, history.KindEnter, key, token, mode, acq.Fence, t, false)
		t += hold
		t = resourceOp(c, history.KindExit, key, token, mode, acq.Fence, t, crash)
		if crash {
			st.crashed = true
			continue
		}
		rel := history.Op{Kind: history.KindRelease, Client: c, Key: key, Mode: mode, Call: t, Return: t + ms(1+rng.IntN(3)), Outcome: history.OK, Token: token}
		if rng.IntN(8) == 0 {
			rel.Outcome, rel.Err = history.Unknown, "timeout"
		}
		ops = append(ops, rel)
		for i, g := range held[key] {
			if g.token == token && g.client == c {
				held[key][i].until = min(g.until, t)
			}
		}
		st.t = rel.Return + ms(rng.IntN(40))
	}
	// faults, for the witnesses
	for i := range rng.IntN(3) {
		s := ms(rng.IntN(1500))
		ops = append(ops, history.Op{Kind: history.KindFault, Client: history.NoClient, Call: s, Return: s + ms(rng.IntN(500)),
			Outcome: history.OK, Fault: "pause-client 0", FaultID: i + 1})
	}
	// the resource's serial order: by landing instant, ties by record
	var res []*history.Op
	for i := range ops {
		if ops[i].Kind == history.KindEnter || ops[i].Kind == history.KindExit || ops[i].Kind == history.KindWrite {
			res = append(res, &ops[i])
		}
	}
	slices.SortStableFunc(res, func(a, b *history.Op) int { return cmp.Compare(a.At, b.At) })
	for _, op := range res {
		seq++
		op.Seq = seq
	}
	// a fenced resource decides in its own order: redo the decisions
	if fenced {
		top := map[string]int64{}
		for _, op := range res {
			ok := op.Fence >= top[op.Key]
			if rng.IntN(10) == 0 {
				ok = !ok
			}
			op.Outcome = history.Fail
			if ok {
				op.Outcome = history.OK
				top[op.Key] = max(top[op.Key], op.Fence)
			}
		}
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	return history.History{Ops: ops}, Config{Fencing: fenced, Timeout: -1}
}
