package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// Starvation is one of the run's own clients that went on asking for a
// lock that was free, past its patience (history.Op.Patience): a waiter
// that never wakes (a lost unlock message with no fallback), a retry
// loop that stopped asking in earnest. The probe after the run cannot see
// it: a fresh client gets the lock.
type Starvation struct {
	Client int    `json:"client"`
	Key    string `json:"key"`
	// WaitFrom and WaitTo are the client's whole wait (its wait record).
	WaitFrom time.Duration `json:"wait_from"`
	WaitTo   time.Duration `json:"wait_to"`
	// FreeFrom and FreeTo are the longest stretch of that wait in which
	// the lock was free and no fault acted, which outlasted Patience.
	FreeFrom time.Duration `json:"free_from"`
	FreeTo   time.Duration `json:"free_to"`
	Patience time.Duration `json:"patience"`
	// Outcome is how the wait ended: ok (it got the lock at last), fail
	// (it gave up) or unknown (the run's end cut it).
	Outcome history.Outcome `json:"outcome"`
}

func (s Starvation) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("client %d waited %v for %q (from %v) while the lock was free from %v to %v (%v, more than its patience of %v)",
		s.Client, r(s.WaitTo-s.WaitFrom), s.Key, r(s.WaitFrom), r(s.FreeFrom), r(s.FreeTo), r(s.FreeTo-s.FreeFrom), r(s.Patience))
}

// Starved finds the run's clients that starved: a wait record during
// which the lock was free, with no fault acting, for longer than the
// wait's patience, while no fault that could hinder it acted (hinders).
// "Free" is judged conservatively from the lock
// operations (possiblyHeld): a key counts as held from the call of any
// acquire that may have set it until its release returned or its TTL ran
// out after the last grant, so an unclear history never makes a client
// starved.
func Starved(h history.History, v View) []Starvation {
	held := possiblyHeld(h, v.End)
	// One merged, sorted list of busy spans per key and client, made once:
	// a run has many waits and few keys and clients.
	type who struct {
		key    string
		client int
	}
	busyOf := map[who][]Span{}
	busy := func(key string, client int) []Span {
		w := who{key, client}
		if b, ok := busyOf[w]; ok {
			return b
		}
		b := slices.Clone(held[key])
		for _, f := range v.Faults {
			if hinders(f, client) {
				end := f.End
				if end < f.Start {
					end = v.End
				}
				b = append(b, Span{Start: f.Start, End: end})
			}
		}
		b = merged(b)
		busyOf[w] = b
		return b
	}
	var out []Starvation
	for _, op := range h.Ops {
		if op.Kind != history.KindWait || op.Client == history.NoClient || op.Patience <= 0 {
			continue
		}
		free := subtract(Span{Start: op.Call, End: op.Return}, busy(op.Key, op.Client))
		var longest Span
		for _, s := range free {
			if s.End-s.Start > longest.End-longest.Start {
				longest = s
			}
		}
		if longest.End-longest.Start > op.Patience {
			out = append(out, Starvation{Client: op.Client, Key: op.Key, WaitFrom: op.Call, WaitTo: op.Return,
				FreeFrom: longest.Start, FreeTo: longest.End, Patience: op.Patience, Outcome: op.Outcome})
		}
	}
	return out
}

// merged sorts spans by start and joins those that meet.
func merged(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// possiblyHeld is, per key, the spans in which some client may have held
// the lock at a node: an upper bound, never a guess that it was free.
// A client's hold runs from the call of the acquire that began it
// (nested acquires of a reentrant lock count levels) until the release
// that ended the last level returned, or until its TTL ran out after the
// last grant or renewal, whichever came first; a hold of a lock without
// TTL, or never released, runs to the end. An acquire of unknown outcome,
// or a refused one that set the key on some nodes (a Redlock minority),
// may have left the key there for a TTL.
func possiblyHeld(h history.History, end time.Duration) map[string][]Span {
	maxTTL := map[string]time.Duration{}
	for _, op := range h.Ops {
		if (op.Kind == history.KindAcquire || op.Kind == history.KindExtend) && op.Outcome == history.OK {
			maxTTL[op.Key] = max(maxTTL[op.Key], op.TTL)
		}
	}
	expiry := func(op history.Op, ttl time.Duration) time.Duration {
		if ttl <= 0 {
			return forever
		}
		return op.Return + ttl
	}
	type hold struct {
		depth  int
		start  time.Duration
		expiry time.Duration
	}
	type owner struct {
		client int
		key    string
	}
	// The operations in call order, as indices: a history's operations are
	// large, and a long history's copy would double what the check holds.
	order := make([]int, len(h.Ops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(h.Ops[a].Call, h.Ops[b].Call) })
	holds := map[owner]*hold{}
	out := map[string][]Span{}
	add := func(key string, start, stop time.Duration) {
		out[key] = append(out[key], Span{Start: start, End: min(stop, end)})
	}
	for _, i := range order {
		op := &h.Ops[i]
		if op.Client == history.NoClient {
			continue
		}
		o := owner{op.Client, op.Key}
		hd := holds[o]
		switch op.Kind {
		case history.KindAcquire:
			switch {
			case op.Outcome == history.OK:
				if hd == nil {
					hd = &hold{start: op.Call}
					holds[o] = hd
				}
				hd.depth++
				hd.expiry = max(hd.expiry, expiry(*op, op.TTL))
			case op.Outcome == history.Unknown || len(op.Granted) > 0:
				add(op.Key, op.Call, expiry(*op, maxTTL[op.Key]))
			}
		case history.KindExtend:
			if hd != nil && op.Outcome == history.OK {
				ttl := op.TTL
				if ttl == 0 {
					ttl = maxTTL[op.Key]
				}
				hd.expiry = max(hd.expiry, expiry(*op, ttl))
			}
		case history.KindRelease:
			if hd == nil {
				continue
			}
			hd.depth--
			if hd.depth > 0 {
				continue
			}
			stop := hd.expiry
			if op.Outcome != history.Unknown {
				stop = min(stop, op.Return)
			}
			add(op.Key, hd.start, stop)
			delete(holds, o)
		}
	}
	for o, hd := range holds {
		add(o.key, hd.start, hd.expiry)
	}
	return out
}

// subtract is what of w no span of busy covers, in order; busy is sorted
// by start and its spans do not meet (merged).
func subtract(w Span, busy []Span) []Span {
	// The first span that ends after w starts; none before it matters.
	i, _ := slices.BinarySearchFunc(busy, w.Start, func(s Span, t time.Duration) int { return cmp.Compare(s.End, t+1) })
	var out []Span
	at := w.Start
	for _, b := range busy[i:] {
		if b.Start >= w.End {
			break
		}
		if b.Start > at {
			out = append(out, Span{Start: at, End: b.Start})
		}
		at = max(at, b.End)
		if at >= w.End {
			return out
		}
	}
	if at < w.End {
		out = append(out, Span{Start: at, End: w.End})
	}
	return out
}

// hinders reports whether fault f could keep client c from a free lock:
// every fault but one that acts on other clients alone (their pause,
// crash or clock, whose effect on the lock, a hold that lasts, is in
// possiblyHeld already). A node or network fault, or a fault whose
// record does not say whom it hit, hinders every client.
func hinders(f FaultWindow, c int) bool {
	t := f.Target
	if t == nil || len(t.Clients) == 0 || len(t.Nodes) > 0 || t.Link || len(t.Groups) > 0 {
		return true
	}
	return slices.Contains(t.Clients, c)
}
