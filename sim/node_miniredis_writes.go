package sim

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const failoverEmulationNote = "failover emulated on miniredis (no replication): the node loses every key last written after the instant its virtual replication link (r<i> <-> n<i>) had delivered, then drops its connections; a key whose last write in that window was an update (PEXPIRE, HSET, INCR) is lost whole instead of reverting, and a DEL in that window is not undone"

// writeLog remembers when each key was last written, in true time, so that
// a failover can be emulated as losing the writes since an instant. A Lua
// script's inner commands pass the pre-hook too, so a script's writes are
// seen as its effects (as Redis replicates them).
type writeLog struct {
	on atomic.Bool
	mu sync.Mutex
	at map[string]time.Time
}

func (w *writeLog) enable() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[string]time.Time{}
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

// loseWritesSince deletes (from db 0, where the locks live) every key last
// written at or after t and returns them.
func (n *miniNode) loseWritesSince(t time.Time) []string {
	lost := n.writes.since(t)
	db := n.srv.DB(0)
	for _, k := range lost {
		db.Del(k)
	}
	return lost
}
