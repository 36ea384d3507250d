package checker

import (
	"cmp"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// validity is what the lease events of a history entitle their clients
// to: for every ok acquire and extend, the instants from its return on at
// which its client may rely on the lease. Both deciders of the claim (the
// window sweep and the porcupine model) read it, so they judge one
// interpretation.
type validity struct {
	spans map[*history.Op][]Span
	// vouched: for an op whose spans an extend filled in, the return of
	// the last extend that did (see leaseValidity).
	vouched map[*history.Op]time.Duration
	// lapses: the stretches those extends filled in.
	lapses []Lapse
}

// Lapse is a stretch in which a lease had run out by its client's clock
// and an ok extend that came after it said the lease had held: the claim
// counts the client as holding throughout (leaseValidity).
type Lapse struct {
	Client int           `json:"client"`
	Key    string        `json:"key"`
	Token  string        `json:"token"`
	Start  time.Duration `json:"start"`
	End    time.Duration `json:"end"`
	// By is the return of the extend that vouched for the stretch.
	By time.Duration `json:"by"`
}

// leaseValidity computes the validity of every lease in byID. An op's own
// part is its client's clock reading of its deadline (entitled): the
// instants from its return at which that clock still read less than the
// deadline.
//
// An ok extend adds more: it is the lock's word that the lease held
// without a break up to it. A lock whose extend only prolongs a key that
// still holds the lease's token says no more than that clock reading did:
// the key was there all along. A lock whose extend takes the key again
// when it finds it gone (a refresh that sets a lapsed key anew) says the
// same words about a lease that lapsed, perhaps while another client held
// the lock, and its client, told nothing else, relies on the lock
// throughout. So an ok extend of an open lease extends the lease's
// previous op (its acquire, or the extend before it) to every instant up
// to the extend's return; on a lock whose extend prolongs only its own
// key this adds nothing another client's lease could overlap.
func leaseValidity(byID map[leaseID][]*history.Op, ids []leaseID, clocks map[int]clockCourse) validity {
	v := validity{spans: map[*history.Op][]Span{}, vouched: map[*history.Op]time.Duration{}}
	for _, id := range ids {
		evs := slices.Clone(byID[id])
		slices.SortStableFunc(evs, func(a, b *history.Op) int { return cmp.Compare(eventAt(a), eventAt(b)) })
		depth := 0
		var prev *history.Op
		var cover []Span // every instant the lease's ops so far entitle
		for _, e := range evs {
			switch e.Kind {
			case history.KindAcquire:
				own := clocks[id.client].entitled(e.Return, e.Deadline)
				v.spans[e] = own
				cover = unionSpans(cover, own)
				depth++
				prev = e
			case history.KindExtend:
				own := clocks[id.client].entitled(e.Return, e.Deadline)
				v.spans[e] = own
				if depth == 0 {
					continue
				}
				if gap := (Span{prev.Return, e.Return}); gap.End > gap.Start {
					for _, l := range spansMissing(cover, gap) {
						v.vouched[prev] = e.Return
						v.lapses = append(v.lapses, Lapse{Client: id.client, Key: id.key, Token: id.token, Start: l.Start, End: l.End, By: e.Return})
					}
					v.spans[prev] = unionSpans(v.spans[prev], []Span{gap})
					cover = unionSpans(cover, []Span{gap})
				}
				cover = unionSpans(cover, own)
				prev = e
			case history.KindRelease:
				if depth > 0 {
					depth--
				}
			}
		}
	}
	return v
}

// spansMissing returns the parts of s that no span of the sorted, disjoint
// spans holds.
func spansMissing(spans []Span, s Span) []Span {
	var out []Span
	at := s.Start
	for _, c := range clipSpans(spans, s.Start, s.End) {
		if c.Start > at {
			out = append(out, Span{at, c.Start})
		}
		at = max(at, c.End)
	}
	if at < s.End {
		out = append(out, Span{at, s.End})
	}
	return out
}
