// Command rueidislock is locksim's adapter for
// github.com/redis/rueidis/rueidislock at a pinned version: one process per
// simulated client, speaking locksim's line protocol (package adapter) on
// stdin and stdout. Every lock call is the library's own: TryWithContext
// (one try) takes the lock, whose context stays alive while the library's
// own timers extend the keys and client-side caching watches them; the
// check before acting is that context; release is its cancel function.
//
// locksim builds it once per version into its cache, with the go.mod and
// go.sum of pins/<version>.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// request and reply are the protocol's lines (adapter/protocol.go).
type request struct {
	Op      string   `json:"op"`
	ID      int64    `json:"id"`
	Nodes   []string `json:"nodes"`
	Options struct {
		TTLms         int64 `json:"ttl_ms"`
		NodeTimeoutMs int64 `json:"node_timeout_ms"`
	} `json:"options"`
	Key   string `json:"key"`
	Token string `json:"token"`
}

type reply struct {
	ID         int64    `json:"id"`
	Result     string   `json:"result"`
	Token      string   `json:"token,omitempty"`
	ValidityMs *float64 `json:"validity_ms,omitempty"`
	Error      string   `json:"error,omitempty"`
	Name       string   `json:"name,omitempty"`
	Version    string   `json:"version,omitempty"`
	Checks     bool     `json:"checks,omitempty"`
}

// extended is the event line for one extension the library made on its
// own: validity_ms is the deadline it set and sent_ms when it sent it,
// both counted from the moment the child read the acquire request that
// made the token, by the child's clock.
type extended struct {
	Event      string   `json:"event"`
	Token      string   `json:"token"`
	Result     string   `json:"result"`
	ValidityMs *float64 `json:"validity_ms,omitempty"`
	SentMs     float64  `json:"sent_ms"`
	Error      string   `json:"error,omitempty"`
}

// version is the pinned library version, set by locksim's build (-X).
var version = "devel"

// hold is one lock the client holds: the library's context and the
// function that releases it, the value the library stored in its key, and
// when the child read the acquire request (the origin of the validities
// it reports).
type hold struct {
	ctx    context.Context
	cancel context.CancelFunc
	val    string
	origin time.Time
}

type adapter struct {
	locker rueidislock.Locker
	ttl    time.Duration
	out    *json.Encoder

	mu     sync.Mutex      // the library's goroutines report through watched
	held   map[string]hold // token -> the library's lock
	byVal  map[string]string
	setVal map[string]string // key -> the value the last acquire script set
}

// emit writes one line: a reply, or an event from the library's goroutines.
func (a *adapter) emit(v any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.out.Encode(v)
}

func main() {
	a := &adapter{held: map[string]hold{}, byVal: map[string]string{}, setVal: map[string]string{}, out: json.NewEncoder(os.Stdout)}
	defer func() {
		if a.locker != nil {
			a.locker.Close()
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var req request
		var r reply
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			r = reply{Result: "error", Error: "bad request: " + err.Error()}
		} else {
			r = a.serve(req, time.Now())
		}
		r.ID = req.ID
		if err := a.emit(r); err != nil {
			return
		}
	}
}

func (a *adapter) serve(req request, t0 time.Time) reply {
	switch req.Op {
	case "hello":
		return a.hello(req)
	case "acquire":
		return a.acquire(req, t0)
	case "check":
		return a.check(req)
	case "release":
		return a.release(req)
	}
	return reply{Result: "error", Error: "unknown op " + req.Op}
}

// hello makes the Locker on the first node: one key per lock
// (KeyMajority 1, as the library advises for a single Redis), the run's
// TTL as its key validity, extended every half of it (the library's
// default), with client-side caching (RESP3 CLIENT TRACKING).
func (a *adapter) hello(req request) reply {
	if len(req.Nodes) == 0 {
		return reply{Result: "error", Error: "hello without nodes"}
	}
	a.ttl = time.Duration(req.Options.TTLms) * time.Millisecond
	// the run's node timeout bounds each command when it sets one; else
	// the library's own connection timeouts do, as for locksim's
	// single-node designs
	nodeT := time.Duration(req.Options.NodeTimeoutMs) * time.Millisecond
	l, err := rueidislock.NewLocker(rueidislock.LockerOption{
		ClientOption: rueidis.ClientOption{
			InitAddress: req.Nodes[:1], ForceSingleClient: true, DisableRetry: true,
			ConnWriteTimeout: nodeT,
		},
		KeyValidity: a.ttl, KeyMajority: 1, NoLoopTracking: true,
		ClientBuilder: func(o rueidis.ClientOption) (rueidis.Client, error) {
			c, err := rueidis.NewClient(o)
			if err != nil {
				return nil, err
			}
			return watched{Client: c, a: a}, nil
		},
	})
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if strings.Contains(strings.ToLower(msg), "tracking") || strings.Contains(msg, "HELLO") {
			// a definite no: this server cannot run the lock
			return reply{Result: "refused", Error: "the server lacks RESP3 CLIENT TRACKING (client-side caching), which rueidislock needs (" + msg + ")"}
		}
		return reply{Result: "error", Error: msg}
	}
	a.locker = l
	return reply{Result: "ok", Name: "rueidislock", Version: version, Checks: true}
}

func (a *adapter) acquire(req request, t0 time.Time) reply {
	key := keyName(req.Key)
	ctx, cancel, err := a.locker.TryWithContext(context.Background(), req.Key)
	if err != nil {
		a.mu.Lock()
		delete(a.setVal, key)
		a.mu.Unlock()
		if errors.Is(err, rueidislock.ErrNotLocked) {
			return reply{Result: "refused", Error: err.Error()}
		}
		return reply{Result: "error", Error: err.Error()}
	}
	token := newToken()
	a.mu.Lock()
	h := hold{ctx: ctx, cancel: cancel, val: a.setVal[key], origin: t0}
	delete(a.setVal, key)
	a.held[token] = h
	if h.val != "" {
		a.byVal[h.val] = token
	}
	a.mu.Unlock()
	// the keys expire KeyValidity after the try began, which is no
	// earlier than t0
	v := float64(a.ttl-time.Since(t0)) / float64(time.Millisecond)
	return reply{Result: "ok", Token: token, ValidityMs: &v}
}

// check is the application's look before it acts: the library's context,
// cancelled once the lock is not held any more.
func (a *adapter) check(req request) reply {
	a.mu.Lock()
	h, ok := a.held[req.Token]
	a.mu.Unlock()
	switch {
	case !ok:
		return reply{Result: "refused", Error: "not held by this client"}
	case h.ctx.Err() != nil:
		return reply{Result: "refused", Error: "the lock's context is done: " + context.Cause(h.ctx).Error()}
	}
	return reply{Result: "ok"}
}

// release cancels the lock's context, which deletes the keys still held;
// a lock whose context the library had already cancelled was lost.
func (a *adapter) release(req request) reply {
	a.mu.Lock()
	h, ok := a.held[req.Token]
	delete(a.held, req.Token)
	delete(a.byVal, h.val)
	a.mu.Unlock()
	if !ok {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	lost := h.ctx.Err() != nil
	h.cancel()
	if lost {
		return reply{Result: "refused", Error: "the lock was lost before the release"}
	}
	return reply{Result: "ok"}
}

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// The library's scripts the child watches for, as the pinned versions
// write them (rueidislock/lock.go: extend and acqat, the same text in
// v1.0.69 and v1.0.71), and their SHA-1s, which EVALSHA names them by.
const (
	extendScript  = `if redis.call("GET",KEYS[1]) == ARGV[1] then local r = redis.call("PEXPIREAT",KEYS[1],ARGV[2]);redis.call("GET",KEYS[1]);return r end;return 0`
	acquireScript = `local r = redis.call("SET",KEYS[1],ARGV[1],"NX","PXAT",ARGV[2]);redis.call("GET",KEYS[1]);return r`
)

var extendSHA, acquireSHA = sha(extendScript), sha(acquireScript)

func sha(script string) string {
	sum := sha1.Sum([]byte(script))
	return hex.EncodeToString(sum[:])
}

// keyName is the library's key for lock name: KeyMajority 1 makes one
// key, number 0, with the default prefix.
func keyName(name string) string { return "rueidislock:0:" + name }

// script is one call of a script the child watches for: which, on which
// key, with which value and deadline (the library's ARGV).
type script struct {
	extend   bool
	sha      bool // sent by EVALSHA (a NOSCRIPT answer is followed by EVAL)
	key, val string
	deadline int64 // unix ms, the PEXPIREAT or PXAT argument
}

// parse reads an EVAL or EVALSHA of the extend or acquire script with one
// key and its two arguments; ok is false for any other command.
func parse(cmd []string) (s script, ok bool) {
	if len(cmd) != 6 || cmd[2] != "1" {
		return s, false
	}
	switch strings.ToUpper(cmd[0]) {
	case "EVALSHA":
		s.sha = true
		switch cmd[1] {
		case extendSHA:
			s.extend = true
		case acquireSHA:
		default:
			return s, false
		}
	case "EVAL":
		switch cmd[1] {
		case extendScript:
			s.extend = true
		case acquireScript:
		default:
			return s, false
		}
	default:
		return s, false
	}
	d, err := strconv.ParseInt(cmd[5], 10, 64)
	if err != nil {
		return s, false
	}
	s.key, s.val, s.deadline = cmd[3], cmd[4], d
	return s, true
}

// watched is the library's client, watched: every extension the library
// sends is reported once the server answered, with what the library
// itself reads from the answer (its script's 1: extended; anything else:
// not, and the library gives the lock up).
type watched struct {
	rueidis.Client
	a *adapter
}

func (w watched) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	// read before Do: the client recycles a command once it is done
	s, ok := parse(cmd.Commands())
	sent := time.Now()
	resp := w.Client.Do(ctx, cmd)
	if ok {
		w.a.saw(s, sent, resp)
	}
	return resp
}

// saw takes a watched script's answer: an acquire's value is kept for the
// acquire request in progress; an extension of a held lock is reported.
func (a *adapter) saw(s script, sent time.Time, resp rueidis.RedisResult) {
	if e, isErr := rueidis.IsRedisErr(resp.Error()); isErr && s.sha && e.IsNoScript() {
		return // not run: the library sends the script itself next
	}
	a.mu.Lock()
	if !s.extend {
		a.setVal[s.key] = s.val
		a.mu.Unlock()
		return
	}
	token, ok := a.byVal[s.val]
	h := a.held[token]
	a.mu.Unlock()
	if !ok {
		return // a lock the client released meanwhile
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	ev := extended{Event: "extended", Token: token, Result: "ok", SentMs: ms(sent.Sub(h.origin))}
	switch v, err := resp.AsInt64(); {
	case err != nil:
		ev.Result, ev.Error = "error", err.Error()
	case v != 1:
		ev.Result, ev.Error = "refused", "the key no longer held the lock's value"
	default:
		// the deadline the library set, by the wall clock it read it from
		validity := ms(time.UnixMilli(s.deadline).Sub(h.origin))
		ev.ValidityMs = &validity
	}
	_ = a.emit(ev)
}
