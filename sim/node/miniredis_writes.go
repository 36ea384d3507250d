package node

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const failoverEmulationNote = "failover emulated on miniredis (no replication): the node goes back to each key's state (a string or a hash, with its TTL) at the instant up to which its virtual replication link (r<i> <-> n<i>) had delivered, as a promoted replica would hold it, then drops its connections; a key of another type, or written only inside a script that did not name it in KEYS, is lost instead of reverting"

// writeLog remembers when each key was last written, in true time, so that
// a failover can be emulated as losing the writes since an instant. A Lua
// script's inner commands pass the pre-hook too, so a script's writes are
// seen as its effects (as Redis replicates them).
//
// It also keeps, for each key, its state just before every command that
// named it (prior): the state at an instant t is the one recorded by the
// first such command at or after t, since nothing changed the key between
// t and that command. A failover reverts a key to it: a DEL or an update
// in the lost window is undone, as on a promoted replica that had not
// received it.
type writeLog struct {
	on    atomic.Bool
	mu    sync.Mutex
	at    map[string]time.Time
	prior map[string][]keyState
	// trimmed is, per key, the newest prior entry dropped to bound the
	// log: the state at an instant not after it is not known any more.
	trimmed map[string]time.Time
}

// maxPriorPerKey bounds the states kept per key (a long run writes a key
// thousands of times); reverting further back loses the key instead.
const maxPriorPerKey = 4096

// keyState is a key's state in db 0 at one instant.
type keyState struct {
	at     time.Time // true time
	exists bool
	// known: a string or a hash, which revert can put back; false for
	// any other type.
	known bool
	str   string
	hash  []string      // field, value, ...
	ttl   time.Duration // left, 0 for none
	clock time.Time     // the node clock when ttl was read
}

func (w *writeLog) enable() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[string]time.Time{}
		w.prior = map[string][]keyState{}
		w.trimmed = map[string]time.Time{}
	}
	w.on.Store(true)
}

func (w *writeLog) enabled() bool { return w.on.Load() }

// note records the keys cmd writes.
func (w *writeLog) note(cmd string, args []string) {
	if !w.on.Load() {
		return
	}
	keys := writtenKeys(strings.ToUpper(cmd), args)
	if len(keys) == 0 {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range keys {
		w.at[k] = now
	}
}

// since removes and returns, sorted, the keys last written at or after t.
// At t itself counts: in virtual time a fault and the writes it holds back
// happen at one instant (the fault first), and a write at the instant up to
// which replication got is one it had not carried yet.
func (w *writeLog) since(t time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for k, at := range w.at {
		if !at.Before(t) {
			out = append(out, k)
			delete(w.at, k)
		}
	}
	slices.Sort(out)
	return out
}

// writesFirstKey are the write commands whose first argument is the only
// key they write: those the lock designs use, and their relatives.
var writesFirstKey = map[string]bool{
	"SET": true, "SETNX": true, "SETEX": true, "PSETEX": true, "GETSET": true, "GETDEL": true, "GETEX": true,
	"APPEND": true, "SETRANGE": true, "INCR": true, "INCRBY": true, "INCRBYFLOAT": true, "DECR": true, "DECRBY": true,
	"EXPIRE": true, "PEXPIRE": true, "EXPIREAT": true, "PEXPIREAT": true, "PERSIST": true,
	"HSET": true, "HSETNX": true, "HMSET": true, "HDEL": true, "HINCRBY": true, "HINCRBYFLOAT": true,
	"SADD": true, "SREM": true, "SPOP": true, "SMOVE": true,
	"LPUSH": true, "RPUSH": true, "LPOP": true, "RPOP": true, "LSET": true, "LREM": true, "LTRIM": true, "LINSERT": true,
	"ZADD": true, "ZREM": true, "ZINCRBY": true, "ZPOPMIN": true, "ZPOPMAX": true,
}

func writtenKeys(cmd string, args []string) []string {
	switch {
	case len(args) == 0:
		return nil
	case writesFirstKey[cmd]:
		return args[:1]
	case cmd == "DEL" || cmd == "UNLINK":
		return args
	case cmd == "RENAME" || cmd == "RENAMENX":
		return args[:min(2, len(args))]
	case cmd == "MSET" || cmd == "MSETNX":
		var keys []string
		for i := 0; i < len(args); i += 2 {
			keys = append(keys, args[i])
		}
		return keys
	}
	return nil
}

// remember records st as key k's state before a command.
func (w *writeLog) remember(k string, st keyState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	states := append(w.prior[k], st)
	if len(states) > maxPriorPerKey {
		drop := len(states) - maxPriorPerKey
		w.trimmed[k] = states[drop-1].at
		states = slices.Delete(states, 0, drop)
	}
	w.prior[k] = states
}

// stateAt is key k's state at instant t, and whether it is known: the
// first state recorded at or after t, as long as the log was not trimmed
// past t. The states from then on are dropped: the revert undoes them.
func (w *writeLog) stateAt(k string, t time.Time) (keyState, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	states := w.prior[k]
	i := slices.IndexFunc(states, func(st keyState) bool { return !st.at.Before(t) })
	if i < 0 {
		return keyState{}, false
	}
	st := states[i]
	w.prior[k] = states[:i]
	if tr, ok := w.trimmed[k]; ok && !tr.Before(t) {
		return keyState{}, false
	}
	return st, st.known || !st.exists
}

// snapshotKeys records, just before cmd runs, the state of the keys it
// may write: those of a write command, and the KEYS a script or function
// names. Called from the pre-hook of a client's own command, never a
// script's inner one (which runs under the server lock that reading the
// database takes).
func (n *miniNode) snapshotKeys(cmd string, args []string) {
	if !n.writes.enabled() {
		return
	}
	keys := writtenKeys(strings.ToUpper(cmd), args)
	if len(keys) == 0 {
		keys = scriptKeys(strings.ToUpper(cmd), args)
	}
	if len(keys) == 0 {
		return
	}
	now := time.Now()
	db := n.srv.DB(0) // also runs the TTL tick, so ttl is the current one
	for _, k := range keys {
		st := keyState{at: now, clock: n.clock.now()}
		switch db.Type(k) {
		case "":
		case "string":
			st.exists, st.known = true, true
			st.str, _ = db.Get(k)
		case "hash":
			st.exists, st.known = true, true
			fields, _ := db.HKeys(k)
			for _, f := range fields {
				st.hash = append(st.hash, f, db.HGet(k, f))
			}
		default:
			st.exists = true
		}
		if st.exists {
			st.ttl = db.TTL(k)
		}
		n.writes.remember(k, st)
	}
}

// scriptKeys are the KEYS of EVAL, EVALSHA, FCALL and their read-only
// forms: script numkeys key...
func scriptKeys(cmd string, args []string) []string {
	switch cmd {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
	default:
		return nil
	}
	if len(args) < 2 {
		return nil
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n <= 0 || 2+n > len(args) {
		return nil
	}
	return args[2 : 2+n]
}

// revertWritesSince puts every key (of db 0, where the locks live) last
// written at or after t back to its state at t, as a replica that had
// received everything up to t holds it, and returns them. A key whose
// state at t is not known is deleted. A TTL runs on: a key whose TTL would
// have run out by now is gone.
func (n *miniNode) revertWritesSince(t time.Time) []string {
	n.changes.Add(1)
	changed := n.writes.since(t)
	db := n.srv.DB(0)
	for _, k := range changed {
		st, ok := n.writes.stateAt(k, t)
		db.Del(k)
		if !ok || !st.exists {
			continue
		}
		left := st.ttl
		if left > 0 {
			if left -= n.clock.now().Sub(st.clock); left <= 0 {
				continue
			}
		}
		if len(st.hash) > 0 {
			db.HSet(k, st.hash...)
		} else {
			_ = db.Set(k, st.str)
		}
		if left > 0 {
			db.SetTTL(k, left)
		}
	}
	return changed
}
