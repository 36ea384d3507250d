package checker

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// The sweep is the exclusion check written the plain way: walk the
// resource's serial log once per key and watch who is inside. It shares no
// code with the porcupine models on purpose; the two must reach the same
// verdict on every history, and a disagreement is a bug in one of them.
// The sweep also builds the witnesses, which porcupine cannot give.

type sweepResult struct {
	violations int    // operations the resource should not have applied
	first      string // the first of them, in words
	witnesses  []Witness
}

func (r sweepResult) unsafe() bool { return r.violations > 0 }

// span is one client's stay at the resource: for enter/exit, from the enter
// that found it outside to the exit that left it outside; for writes, from
// a section's first accepted write to its last.
type span struct {
	client int
	token  string
	fence  int64
	start  time.Duration
	end    time.Duration
	open   bool // still inside at the end of the history
}

func (s span) interval() Interval {
	return Interval{Client: s.client, Token: s.token, Fence: s.fence, Start: s.start, End: s.end}
}

// pair is a violation found during the walk; spans' ends are known only
// after it, so witnesses are built at the end.
type pair struct {
	a, b int // span indices: a was inside (current), b came in
	note string
}

func sweepExclusion(log resourceLog, fi faultIndex, end time.Duration) sweepResult {
	var r sweepResult
	for _, key := range log.keys {
		var spans []span
		var pairs []pair
		if log.fenced {
			spans, pairs = sweepWrites(log.byKey[key], &r)
		} else {
			spans, pairs = sweepEnterExit(log.byKey[key], end, &r)
		}
		if r.first == "" && len(pairs) > 0 {
			r.first = fmt.Sprintf("key %q: %s", key, pairs[0].note)
		}
		for _, p := range pairs {
			if len(r.witnesses) == maxWitnesses {
				break
			}
			a, b := spans[p.a], spans[p.b]
			note := p.note
			if a.open || b.open {
				note += "; a section that never exited lasts to the end of the history"
			}
			r.witnesses = append(r.witnesses, fi.witness(vocab.CheckExclusion, key, a.interval(), b.interval(), note))
		}
	}
	return r
}

// inside is one client inside, for the enter/exit sweep.
type inside struct {
	client        int
	reads, writes int
	span          int
}

func sweepEnterExit(ops []*resOp, end time.Duration, r *sweepResult) ([]span, []pair) {
	var spans []span
	var pairs []pair
	var in []inside // few at a time; a slice keeps witness order deterministic
	find := func(c int) int {
		return slices.IndexFunc(in, func(x inside) bool { return x.client == c })
	}
	for _, op := range ops {
		i := find(op.client)
		if op.kind == history.KindEnter {
			if i < 0 {
				spans = append(spans, span{client: op.client, token: op.token, fence: op.fence, start: op.at})
				in = append(in, inside{client: op.client, span: len(spans) - 1})
				i = len(in) - 1
			}
			violated := false
			for _, o := range in {
				if o.client == op.client {
					continue
				}
				if op.read && o.writes == 0 {
					continue // readers share
				}
				violated = true
				mode := "write"
				if op.read {
					mode = "read"
				}
				pairs = append(pairs, pair{a: o.span, b: in[i].span, note: fmt.Sprintf(
					"client %d entered (%s) at %v while client %d was inside since %v",
					op.client, mode, op.at, o.client, spans[o.span].start)})
			}
			if violated {
				r.violations++
			}
			if op.read {
				in[i].reads++
			} else {
				in[i].writes++
			}
			continue
		}
		// exit: only what was entered in that mode can leave
		if i < 0 {
			continue
		}
		if op.read && in[i].reads > 0 {
			in[i].reads--
		} else if !op.read && in[i].writes > 0 {
			in[i].writes--
		}
		if in[i].reads == 0 && in[i].writes == 0 {
			spans[in[i].span].end = op.at
			in = slices.Delete(in, i, i+1)
		}
	}
	for _, o := range in {
		spans[o.span].end = end
		spans[o.span].open = true
	}
	return spans, pairs
}

func sweepWrites(ops []*resOp, r *sweepResult) ([]span, []pair) {
	var spans []span
	idx := map[section]int{}
	for _, op := range ops {
		if !op.accepted {
			continue
		}
		s := op.section()
		if i, ok := idx[s]; ok {
			spans[i].end = op.at
			continue
		}
		idx[s] = len(spans)
		spans = append(spans, span{client: op.client, token: op.token, fence: op.fence, start: op.at, end: op.at})
	}
	var pairs []pair
	cur := -1
	closed := make([]bool, len(spans))
	for _, op := range ops {
		if !op.accepted {
			continue
		}
		i := idx[op.section()]
		switch {
		case i == cur:
		case closed[i]:
			r.violations++
			pairs = append(pairs, pair{a: cur, b: i, note: fmt.Sprintf(
				"the resource accepted client %d's write (fence %d) at %v after client %d's lease (fence %d) took over at %v",
				op.client, op.fence, op.at, spans[cur].client, spans[cur].fence, spans[cur].start)})
			closed[cur] = true
			cur = i
		default:
			if cur >= 0 {
				closed[cur] = true
			}
			cur = i
		}
	}
	return spans, pairs
}
