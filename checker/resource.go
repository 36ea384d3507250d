package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/history"
)

// resOp is one operation the resource applied, as the exclusion check sees
// it. Operations that never reached the resource (Seq 0) are not resOps:
// the resource has no record of them, so they had no effect there.
type resOp struct {
	kind     history.Kind // enter, exit or write
	client   int
	key      string
	token    string
	fence    int64
	read     bool // mode "read"
	accepted bool // writes: the resource accepted the token
	unacked  bool // the client never saw the reply: to it, accepted is unknown
	at       time.Duration
	seq      int64
}

// section identifies one lease's run of writes at the resource. The fence
// is part of it so that a history whose writes carry fences but no token
// still separates leases.
type section struct {
	client int
	token  string
	fence  int64
}

func (op *resOp) section() section { return section{op.client, op.token, op.fence} }

// resourceLog is the resource's serial log, split by lock key.
type resourceLog struct {
	fenced bool                // judging accepted writes, not enter/exit
	keys   []string            // sorted, for deterministic output
	byKey  map[string][]*resOp // each in Seq order
	all    []*resOp            // every key, in the resource's order
	lost   int                 // judged-kind operations that never reached it
	note   string              // how the mode was chosen, when not obvious
}

// resourceOps extracts the operations the exclusion check judges. A
// history with writes is fenced: its sections are runs of accepted writes
// and enter/exit are ignored. Without writes, enter/exit are judged, even
// when Config.Fencing is set: judging what was recorded beats declaring an
// empty set of writes safe.
func resourceOps(h history.History, cfg Config) (resourceLog, error) {
	var hasWrites, hasEnterExit bool
	for i := range h.Ops {
		switch h.Ops[i].Kind {
		case history.KindWrite:
			hasWrites = true
		case history.KindEnter, history.KindExit:
			hasEnterExit = true
		}
	}
	log := resourceLog{fenced: hasWrites, byKey: map[string][]*resOp{}}
	if cfg.Fencing && !hasWrites && hasEnterExit {
		log.note = "fencing on but no writes recorded: judging enter/exit; "
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		judged := op.Kind == history.KindWrite
		if !log.fenced {
			judged = op.Kind == history.KindEnter || op.Kind == history.KindExit
		}
		if !judged {
			continue
		}
		if op.Seq <= 0 {
			log.lost++
			continue
		}
		r := &resOp{kind: op.Kind, client: op.Client, key: op.Key, token: op.Token,
			fence: op.Fence, at: op.At, seq: op.Seq}
		switch op.Mode {
		case "", "write":
		case "read":
			r.read = true
		default:
			return resourceLog{}, fmt.Errorf("%s seq %d: unknown mode %q", op.Kind, op.Seq, op.Mode)
		}
		if op.Kind == history.KindWrite {
			switch op.Outcome {
			case history.OK:
				r.accepted = true
			case history.Fail:
			default:
				// The resource decided, but the history lost the
				// decision; guessing it could hide or invent a violation.
				return resourceLog{}, fmt.Errorf("write seq %d reached the resource but its outcome is %q: the resource's decision must be recorded", op.Seq, op.Outcome)
			}
		}
		log.all = append(log.all, r)
		log.byKey[r.key] = append(log.byKey[r.key], r)
	}
	for key, ops := range log.byKey {
		log.keys = append(log.keys, key)
		slices.SortFunc(ops, func(a, b *resOp) int { return cmp.Compare(a.seq, b.seq) })
		for i := 1; i < len(ops); i++ {
			if ops[i].seq == ops[i-1].seq {
				return resourceLog{}, fmt.Errorf("key %q: two operations with seq %d", key, ops[i].seq)
			}
			if ops[i].at < ops[i-1].at {
				return resourceLog{}, fmt.Errorf("key %q: seq %d applied at %v, before seq %d at %v", key, ops[i].seq, ops[i].at, ops[i-1].seq, ops[i-1].at)
			}
		}
	}
	slices.Sort(log.keys)
	slices.SortStableFunc(log.all, func(a, b *resOp) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq), cmp.Compare(a.key, b.key))
	})
	return log, nil
}
