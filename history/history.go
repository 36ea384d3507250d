// Package history is what a run leaves behind: its operations (lock
// operations, resource operations, faults and clock records) in true time,
// written as history.jsonl, one JSON object per line. It is the leaf every
// stage shares: the simulator records it, the checker and the reports read
// it, and a saved file can be re-checked offline without linking any of the
// simulator's Redis or network code.
package history

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Kind is what an operation in the history did.
type Kind string

const (
	// Lock operations, as the client saw them: Call before the request was
	// sent, Return once the reply (or the error) was in hand.
	KindAcquire Kind = "acquire" // one attempt; Outcome ok carries the lease
	KindCheck   Kind = "check"   // the client's validity check; fail: it gave up
	KindExtend  Kind = "extend"  // a renewal (watchdog or explicit)
	KindRelease Kind = "release"
	KindProbe   Kind = "probe" // liveness probe after every fault healed

	// Resource operations. Call/Return are the client's view; At and Seq are
	// the resource's own: the true instant it applied the operation and its
	// place in the resource's serial log.
	KindEnter Kind = "enter"
	KindExit  Kind = "exit"
	KindWrite Kind = "write" // a fenced write carrying the lease's token

	// Faults, recorded like operations (Call = start, Return = stop).
	KindFault Kind = "fault"

	// A client's clock was set (a jump, a new rate, a heal): from Call on
	// it reads Reading + (t - Call) * Rate at true time t, until its next
	// clock record. A client without one reads true time.
	KindClock Kind = "clock"

	// Something a redis-sentinel announced (sentinel failover mode): Event
	// is its channel (+sdown, +odown, +switch-master...), Detail the
	// message, Source the sentinel (s0, s1, s2); Call = Return = when the
	// harness heard it.
	KindSentinel Kind = "sentinel"
)

// Outcome of an operation. Unknown is never guessed into ok or fail.
type Outcome string

const (
	OK      Outcome = "ok"
	Fail    Outcome = "fail"    // a definite refusal (not acquired, not held, rejected write)
	Unknown Outcome = "unknown" // timeout, crash, lost reply: it may or may not have happened
)

// NoClient marks operations of the harness itself (faults, probe).
const NoClient = -1

// Op is one line of history.jsonl. Times are true time since the run's start.
type Op struct {
	Kind    Kind          `json:"kind"`
	Client  int           `json:"client"`
	Key     string        `json:"key,omitempty"`
	Mode    string        `json:"mode,omitempty"` // "read" or "write" for read/write locks
	Call    time.Duration `json:"call"`
	Return  time.Duration `json:"return"`
	Outcome Outcome       `json:"outcome"`
	Token   string        `json:"token,omitempty"` // the lease's unique value
	Fence   int64         `json:"fence,omitempty"` // fencing token, when any
	// Deadline ends the validity of the lease an ok acquire or extend
	// gave, as a reading of its client's clock (time since that clock's
	// epoch; true time while the clock was never moved); 0 when the lock
	// has no expiry. Its true-time image follows everything the clock did
	// after the acquire (see KindClock), so it is kept as the reading.
	Deadline time.Duration `json:"deadline,omitempty"`
	// Reading and Rate describe a clock record (KindClock).
	Reading time.Duration `json:"reading,omitempty"`
	Rate    float64       `json:"rate,omitempty"`
	// At and Seq are set for resource operations that reached the resource.
	At  time.Duration `json:"at,omitempty"`
	Seq int64         `json:"seq,omitempty"`
	// Unacked marks a resource operation whose reply its client never saw
	// (it crashed with the message in flight): to the client its outcome
	// is unknown, and Return is only when the message landed.
	Unacked bool `json:"unacked,omitempty"`
	// Fault describes a fault operation (its printable value); FaultID pairs
	// the record with triggers and witnesses.
	Fault   string `json:"fault,omitempty"`
	FaultID int    `json:"fault_id,omitempty"`
	// Target says whom a fault record's fault hit (nil in histories from
	// before it was recorded, and for faults that do not say).
	Target *Target `json:"target,omitempty"`
	Err    string  `json:"err,omitempty"`
	// Reason classifies a failed (fail or unknown) acquire: one of the
	// Reason constants.
	Reason string `json:"reason,omitempty"`
	// Granted and Asked are an acquire's per-node replies: the nodes (by
	// index) that set the key for this attempt, out of Asked nodes asked.
	// Empty when the design does not report them (Asked 0).
	Granted []int `json:"granted,omitempty"`
	Asked   int   `json:"asked,omitempty"`
	// TTL is the expiry an acquire (or extend) set on the nodes, by the
	// nodes' clocks; 0 when the lock has no expiry or it is not known.
	TTL time.Duration `json:"ttl,omitempty"`
	// WaitFrom is set on an acquire attempt that a notified waiter (wait:
	// notify) made after waiting for the lock's unlock message: the true
	// time that wait began, when the waiter reached wait-for-unlock. The
	// wait lasted until Call, cut short by the message or run out on its
	// timer (the holder's PTTL); which of the two the history does not
	// say. 0: the attempt followed no such wait (a polling design's
	// retries, the first attempt, histories from before it was recorded).
	// A wait that the run's end or a crash cut short is not recorded: no
	// attempt followed it.
	WaitFrom time.Duration `json:"wait_from,omitempty"`
	// Event, Detail and Source describe a sentinel record (KindSentinel).
	Event  string `json:"event,omitempty"`
	Detail string `json:"detail,omitempty"`
	Source string `json:"source,omitempty"`
}

// Why a failed acquire failed (Op.Reason).
const (
	ReasonRefused       = "refused"        // the lock was held: a definite no
	ReasonNoMajority    = "no-majority"    // a multi-node design set the key on fewer than a majority
	ReasonValiditySpent = "validity-spent" // a majority set it, but the round took the whole validity
	ReasonTimeout       = "timeout"        // no reply in time: outcome unknown
	ReasonError         = "error"          // another error (a dropped connection, a crash): outcome unknown
)

// Target is whom a fault hit, so that a chart can draw it on their rows.
// Endpoint names in Groups are the scenario's: c<i> clients, n<i> nodes,
// r<i> replication links, and the wildcards clients, nodes, replicas.
type Target struct {
	Kind    string     `json:"kind"`              // the fault's kind, as scenario files spell it
	Clients []int      `json:"clients,omitempty"` // clients it acts on
	Nodes   []int      `json:"nodes,omitempty"`   // nodes it acts on
	Groups  [][]string `json:"groups,omitempty"`  // a partition's sides
	// Link: a network fault between Clients and Nodes (either empty
	// meaning all), or between Groups.
	Link bool `json:"link,omitempty"`
	// ClockJump and ClockRate: a node or client clock fault's size.
	ClockJump time.Duration `json:"clock_jump,omitempty"`
	ClockRate float64       `json:"clock_rate,omitempty"`
	// Down is how long a killed node stayed down from the fault's start
	// (negative: until healed); KeepData: it came back with its data.
	Down     time.Duration `json:"down,omitempty"`
	KeepData bool          `json:"keep_data,omitempty"`
}

// History is every operation of one run, in the order they completed.
type History struct {
	Ops []Op
}

// WriteJSONL writes one JSON object per line.
func (h History) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range h.Ops {
		if err := enc.Encode(&h.Ops[i]); err != nil {
			return fmt.Errorf("history: op %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// ReadJSONL reads a history written by WriteJSONL. Errors name the line.
func ReadJSONL(r io.Reader) (History, error) {
	return ReadJSONLBounded(context.Background(), r, Bounds{})
}

func (op Op) validate() error {
	switch op.Kind {
	case KindAcquire, KindCheck, KindExtend, KindRelease, KindProbe,
		KindEnter, KindExit, KindWrite, KindFault, KindClock, KindSentinel:
	default:
		return fmt.Errorf("unknown kind %q", op.Kind)
	}
	switch op.Outcome {
	case OK, Fail, Unknown:
	default:
		return fmt.Errorf("unknown outcome %q", op.Outcome)
	}
	if op.Return < op.Call {
		return errors.New("return before call")
	}
	switch op.Reason {
	case "", ReasonRefused, ReasonNoMajority, ReasonValiditySpent, ReasonTimeout, ReasonError:
	default:
		return fmt.Errorf("unknown reason %q", op.Reason)
	}
	if op.WaitFrom != 0 && (op.Kind != KindAcquire || op.WaitFrom < 0 || op.WaitFrom > op.Call) {
		return fmt.Errorf("wait_from %v: a wait for the unlock message precedes an acquire's call (%v)", op.WaitFrom, op.Call)
	}
	if op.Kind == KindClock && !(op.Rate > 0) {
		return fmt.Errorf("clock record with rate %v: a clock runs at a positive rate", op.Rate)
	}
	return nil
}
