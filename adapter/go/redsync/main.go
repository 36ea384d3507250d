// Command redsync is locksim's adapter for github.com/go-redsync/redsync/v4
// at a pinned version: one process per simulated client, speaking
// locksim's line protocol (package adapter) on stdin and stdout. Every
// lock call is the library's own: Mutex.LockContext with one try,
// ExtendContext and UnlockContext over one go-redis client per node, and
// the check before acting is the one the version offers (stillValid).
//
// locksim builds it once per version into its cache, with the go.mod and
// go.sum of pins/<version>; the files it copies for that version select the
// go-redis generation, whether the library exposes Mutex.Until, and
// whether it reports a mutex's token (Mutex.Value) or the adapter draws it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
)

// request and reply are the protocol's lines (adapter/protocol.go).
type request struct {
	Op      string `json:"op"`
	ID      int64  `json:"id"`
	Nodes   []string
	Options struct {
		TTLms         int64   `json:"ttl_ms"`
		Drift         float64 `json:"drift"`
		RetryDelayMs  int64   `json:"retry_delay_ms"`
		NodeTimeoutMs int64   `json:"node_timeout_ms"`
	} `json:"options"`
	Key   string `json:"key"`
	Token string `json:"token"`
	TTLms int64  `json:"ttl_ms"`
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

// version is the pinned library version, set by locksim's build (-X).
var version = "devel"

type adapter struct {
	rs    *redsync.Redsync
	drift float64
	nodeT time.Duration
	held  map[string]*redsync.Mutex // token -> the library's mutex
}

func main() {
	a := &adapter{held: map[string]*redsync.Mutex{}}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := json.NewEncoder(os.Stdout)
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
		if err := out.Encode(r); err != nil {
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
	case "extend":
		return a.extend(req, t0)
	case "release":
		return a.release(req)
	case "check":
		return a.check(req)
	}
	return reply{Result: "error", Error: "unknown op " + req.Op}
}

func (a *adapter) hello(req request) reply {
	a.drift = req.Options.Drift
	a.nodeT = time.Duration(req.Options.NodeTimeoutMs) * time.Millisecond
	if a.nodeT <= 0 {
		a.nodeT = time.Duration(max(req.Options.TTLms/10, 5)) * time.Millisecond
	}
	pools := make([]redsyncredis.Pool, len(req.Nodes))
	for i, addr := range req.Nodes {
		pools[i] = newPool(addr, a.nodeT)
	}
	a.rs = redsync.New(pools...)
	return reply{Result: "ok", Name: "redsync", Version: version, Checks: true}
}

func (a *adapter) acquire(req request, t0 time.Time) reply {
	ttl := time.Duration(req.TTLms) * time.Millisecond
	opts := append([]redsync.Option{
		redsync.WithExpiry(ttl),
		redsync.WithTries(1),
		redsync.WithDriftFactor(a.drift),
	}, timeoutOption(a.nodeT, ttl)...)
	m, value := newMutex(a.rs, req.Key, opts)
	// one try, so the library sends its unlock round to every node before
	// it returns a failure: a definite no, as locksim's redlock design
	// treats a failed round
	if err := m.LockContext(context.Background()); err != nil {
		return reply{Result: "refused", Error: err.Error()}
	}
	a.held[value()] = m
	return reply{Result: "ok", Token: value(), ValidityMs: validity(m, t0)}
}

// mutex is the library's mutex for the request's token: the one this
// process locked, else one the version makes for a token it is handed
// (adopt), or nil where it cannot.
func (a *adapter) mutex(req request) *redsync.Mutex {
	if m, ok := a.held[req.Token]; ok {
		return m
	}
	ttl := time.Duration(req.TTLms) * time.Millisecond
	return adopt(a.rs, req.Key, req.Token, max(ttl, time.Millisecond))
}

func (a *adapter) extend(req request, t0 time.Time) reply {
	m := a.mutex(req)
	if m == nil {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	ok, err := m.ExtendContext(context.Background())
	if ok {
		return reply{Result: "ok", ValidityMs: validity(m, t0)}
	}
	return failed(err)
}

// check is the application's look before it acts on the lock: the
// library's own validity check at this version (stillValid).
func (a *adapter) check(req request) reply {
	m, ok := a.held[req.Token]
	if !ok {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	valid, err := stillValid(context.Background(), m)
	switch {
	case valid:
		return reply{Result: "ok"}
	case err != nil:
		return failed(err)
	}
	return reply{Result: "refused", Error: "the library says the lock is no longer valid"}
}

func (a *adapter) release(req request) reply {
	m := a.mutex(req)
	delete(a.held, req.Token)
	if m == nil {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	ok, err := m.UnlockContext(context.Background())
	if ok {
		return reply{Result: "ok"}
	}
	return failed(err)
}

// failed says refused when every node answered that the lock is not this
// owner's (taken, expired, or no quorum without node errors), error when a
// node did not answer: its outcome is unknown.
func failed(err error) reply {
	if err == nil {
		return reply{Result: "refused", Error: "not held on a quorum of nodes"}
	}
	msg := err.Error()
	if strings.Contains(msg, "i/o timeout") || strings.Contains(msg, "connection") || strings.Contains(msg, "EOF") ||
		strings.Contains(msg, "context deadline") {
		return reply{Result: "error", Error: msg}
	}
	return reply{Result: "refused", Error: msg}
}
