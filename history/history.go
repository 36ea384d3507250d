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

	"github.com/locksim/locksim/vocab"
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
	// A client's whole wait for the lock: from the moment it began to ask
	// (past its before-acquire point) until the blocking acquire returned.
	// Outcome ok: it got the lock; fail: it gave up (its retries ran out);
	// unknown: the run's end, a crash or an error cut the wait. Patience
	// says how long it may wait while the lock is free before it counts as
	// starved. Its attempts are KindAcquire records inside [Call, Return].
	KindWait Kind = "wait"

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

	// What the harness saw of a lock key on one node (Node), by reading
	// the node itself, never through a design or its client: recorded when
	// it changed. Outcome ok: the key was there, holding Value (a string's
	// value, or a hash's field names joined by commas), with TTL left, or
	// none at all (NoTTL); fail: the key was not there; unknown: the node
	// did not answer (down). The state began between Call (when the read
	// before, which still found the previous state, was sent) and Return
	// (when the read that found it had its answer); the first read of a
	// key has Call = when it was sent.
	KindNode Kind = "node"

	// A Redis Cluster node redirected a client's command (backend
	// redis-cluster): Event is MOVED or ASK, Detail the slot and the
	// node it was sent on to, as the reply gave them; Call = Return =
	// when the client had the reply. The client followed it.
	KindRedirect Kind = "redirect"
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
	// AtEnd marks a fault record whose fault was still on when the run's
	// duration ran out, so that the harness's final heal ended it (Return
	// is then the run's end); Cut, that this came before the fault's own
	// end (its for: or until:), so it did not last as long as planned.
	AtEnd bool `json:"at_end,omitempty"`
	Cut   bool `json:"cut,omitempty"`
	// Err is what went wrong: an operation's error, or on a fault record
	// the harness's own error starting the fault (outcome fail: it never
	// acted) or healing it (outcome unknown: a restart, a rejoin after a
	// failover or a resume that failed).
	Err string `json:"err,omitempty"`
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
	// A wait for the message that the run's end or a crash cut short, no
	// attempt following it, is on the client's wait record (KindWait): it
	// lasted from WaitFrom to the wait record's Return.
	WaitFrom time.Duration `json:"wait_from,omitempty"`
	// Patience is set on a wait record (KindWait): the longest a client
	// of this design may go on asking while the lock is free before the
	// liveness check calls it starved: the lock's TTL (a notified waiter
	// that missed the unlock message sleeps up to the holder's remaining
	// TTL), one retry interval with its jitter, and the harness's slack
	// (and a design's client clock tolerance).
	Patience time.Duration `json:"patience,omitempty"`
	// Event, Detail and Source describe a sentinel record (KindSentinel);
	// Event and Detail a redirect (KindRedirect); Event on a node record
	// (KindNode) the redirect that answered the harness's read (see Role).
	Event  string `json:"event,omitempty"`
	Detail string `json:"detail,omitempty"`
	Source string `json:"source,omitempty"`
	// Node, Value and NoTTL describe a node observation (KindNode).
	Node  int    `json:"node,omitempty"`
	Value string `json:"value,omitempty"`
	NoTTL bool   `json:"no_ttl,omitempty"`
	// Role is, on a node observation of a Redis Cluster node that
	// answered, what ROLE said the node was at that read: RoleMaster or
	// RoleReplica; empty on the other backends (and in histories from
	// before it was recorded). On such a record Event is the redirect
	// (MOVED, ASK, TRYAGAIN) the node answered the read of the key with
	// instead of its copy: it did not serve the key's slot; or
	// RedirectImporting: it answered a plain read with MOVED, but a read
	// after ASKING with its copy (Outcome, Value), as a master importing
	// the slot does. A master that answered with no Event served the
	// key's slot; a replica that did, kept a copy of it (its master
	// served it).
	Role string `json:"role,omitempty"`
}

// RedirectImporting is a node record's Event when the node imports the
// key's slot (see Op.Role).
const RedirectImporting = "IMPORTING"

// The roles a node record's Role names (ROLE's first word, whose
// "slave" is written replica).
const (
	RoleMaster  = "master"
	RoleReplica = "replica"
)

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
	Kind    vocab.Kind `json:"kind"`              // the fault's kind, as scenario files spell it
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
	// Sentinel: a failover left to Redis Sentinel. The fault's start only
	// kills the master; the promotion is the sentinels' +switch-master
	// (KindSentinel records), which may come late or never.
	Sentinel bool `json:"sentinel,omitempty"`
	// Election: a Redis Cluster's failover, from the master's kill (or
	// the CLUSTER FAILOVER command) until the replica served the slots in
	// every node's view, as the harness measured it; Nodes then holds the
	// old master and the winner.
	Election time.Duration `json:"election,omitempty"`
	// Slot: the Redis Cluster hash slot a cluster fault acted on.
	Slot int `json:"slot,omitempty"`
	// Refused: a Redis Cluster master cut off from the majority, how long
	// after the cut it called the cluster down and refused writes
	// (CLUSTERDOWN), as the harness measured it; zero when it did not
	// before the heal.
	Refused time.Duration `json:"refused,omitempty"`
}

// History is every operation of one run, in the order they completed.
type History struct {
	Ops []Op
}

// WriteJSONL writes one JSON object per line.
// A record of the usual shape is encoded by appendFast, any other by
// encoding/json: the same bytes either way.
func (h History) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var line []byte
	for i := range h.Ops {
		var ok bool
		if line, ok = appendFast(line[:0], &h.Ops[i]); ok {
			if _, err := bw.Write(line); err != nil {
				return fmt.Errorf("history: op %d: %w", i, err)
			}
			continue
		}
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

// kinds and outcomes are the values Kind and Outcome read from JSON
// without allocating a string per line.
var (
	kinds = func() map[string]Kind {
		m := map[string]Kind{}
		for _, k := range []Kind{KindAcquire, KindCheck, KindExtend, KindRelease, KindProbe, KindWait,
			KindEnter, KindExit, KindWrite, KindFault, KindClock, KindSentinel, KindNode, KindRedirect} {
			m[string(k)] = k
		}
		return m
	}()
	outcomes = map[string]Outcome{string(OK): OK, string(Fail): Fail, string(Unknown): Unknown}
)

// UnmarshalText reads a kind as history.jsonl spells it; a known kind
// takes no allocation, an unknown one is kept for validate to name.
func (k *Kind) UnmarshalText(b []byte) error {
	if v, ok := kinds[string(b)]; ok {
		*k = v
		return nil
	}
	*k = Kind(b)
	return nil
}

// UnmarshalText reads an outcome as history.jsonl spells it; a known
// outcome takes no allocation, an unknown one is kept for validate to
// name.
func (o *Outcome) UnmarshalText(b []byte) error {
	if v, ok := outcomes[string(b)]; ok {
		*o = v
		return nil
	}
	*o = Outcome(b)
	return nil
}

func (op Op) validate() error {
	switch op.Kind {
	case KindAcquire, KindCheck, KindExtend, KindRelease, KindProbe, KindWait,
		KindEnter, KindExit, KindWrite, KindFault, KindClock, KindSentinel, KindNode, KindRedirect:
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
	switch {
	case op.WaitFrom == 0:
	case op.Kind == KindWait:
		if op.WaitFrom < op.Call || op.WaitFrom > op.Return {
			return fmt.Errorf("wait_from %v: a wait for the unlock message cut short lies within its wait record (%v to %v)", op.WaitFrom, op.Call, op.Return)
		}
	case op.Kind != KindAcquire || op.WaitFrom < 0 || op.WaitFrom > op.Call:
		return fmt.Errorf("wait_from %v: a wait for the unlock message precedes an acquire's call (%v)", op.WaitFrom, op.Call)
	}
	if op.Patience < 0 || op.Patience != 0 && op.Kind != KindWait {
		return fmt.Errorf("patience %v: only a wait record has one, and it is not negative", op.Patience)
	}
	switch op.Role {
	case "", RoleMaster, RoleReplica:
	default:
		return fmt.Errorf("role %q: a node is %q or %q", op.Role, RoleMaster, RoleReplica)
	}
	if op.Kind == KindNode && op.Node < 0 {
		return fmt.Errorf("node record of node %d: nodes count from 0", op.Node)
	}
	if op.Kind == KindClock && !(op.Rate > 0) {
		return fmt.Errorf("clock record with rate %v: a clock runs at a positive rate", op.Rate)
	}
	return nil
}
