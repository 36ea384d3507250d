// Command redislock is locksim's adapter for github.com/bsm/redislock at a
// pinned version: one process per simulated client, speaking locksim's
// line protocol (package adapter) on stdin and stdout. Every lock call is
// the library's own, on node 0 over one go-redis v9 client: Client.Obtain
// with NoRetry (locksim's loop retries), Lock.Refresh and Lock.Release.
//
// Refresh is handed the options an application that wants its renewals to
// survive a brief outage passes: a RetryStrategy of LinearBackoff at the
// run's retry delay. Whether the library uses it is the version's: from
// v0.10.0 Refresh retries a transient error until the strategy or the
// context gives up (without a deadline in the context, one TTL); v0.9.4
// takes the options and makes one attempt (bsm/redislock PR #83, PR #88).
//
// locksim builds it once per version into its cache, with the go.mod and
// go.sum of pins/<version>.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
)

// request and reply are the protocol's lines (adapter/protocol.go).
type request struct {
	Op      string `json:"op"`
	ID      int64  `json:"id"`
	Nodes   []string
	Options struct {
		TTLms         int64 `json:"ttl_ms"`
		RetryDelayMs  int64 `json:"retry_delay_ms"`
		NodeTimeoutMs int64 `json:"node_timeout_ms"`
	} `json:"options"`
	Key   string `json:"key"`
	Token string `json:"token"`
	TTLms int64  `json:"ttl_ms"`
}

type reply struct {
	ID      int64  `json:"id"`
	Result  string `json:"result"`
	Token   string `json:"token,omitempty"`
	Error   string `json:"error,omitempty"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// version is the pinned library version, set by locksim's build (-X).
var version = "devel"

type adapter struct {
	client *redislock.Client
	retry  time.Duration
	held   map[string]*redislock.Lock // token -> the library's lock
}

func main() {
	a := &adapter{held: map[string]*redislock.Lock{}}
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
			r = a.serve(req)
		}
		r.ID = req.ID
		if err := out.Encode(r); err != nil {
			return
		}
	}
}

func (a *adapter) serve(req request) reply {
	switch req.Op {
	case "hello":
		return a.hello(req)
	case "acquire":
		return a.acquire(req)
	case "extend":
		return a.extend(req)
	case "release":
		return a.release(req)
	}
	return reply{Result: "error", Error: "unknown op " + req.Op}
}

// hello connects to node 0: no retries inside go-redis, every command
// bounded by the run's node timeout. The pool is large enough that the
// dial errors of an outage never reach PoolSize, past which go-redis
// refuses dials until a background probe (once a second) gets through.
func (a *adapter) hello(req request) reply {
	if len(req.Nodes) == 0 {
		return reply{Result: "error", Error: "hello: no nodes"}
	}
	nodeT := time.Duration(req.Options.NodeTimeoutMs) * time.Millisecond
	if nodeT <= 0 {
		nodeT = time.Duration(max(req.Options.TTLms/10, 5)) * time.Millisecond
	}
	a.retry = time.Duration(req.Options.RetryDelayMs) * time.Millisecond
	if a.retry <= 0 {
		a.retry = 50 * time.Millisecond
	}
	a.client = redislock.New(redis.NewClient(&redis.Options{
		Addr: req.Nodes[0], MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: nodeT, WriteTimeout: nodeT, PoolSize: 256,
	}))
	return reply{Result: "ok", Name: "redislock", Version: version}
}

// acquire is one Obtain (NoRetry); the token is the library's.
func (a *adapter) acquire(req request) reply {
	ttl := time.Duration(req.TTLms) * time.Millisecond
	lk, err := a.client.Obtain(context.Background(), req.Key, ttl, &redislock.Options{RetryStrategy: redislock.NoRetry()})
	if errors.Is(err, redislock.ErrNotObtained) {
		return reply{Result: "refused", Error: err.Error()}
	} else if err != nil {
		return reply{Result: "error", Error: err.Error()}
	}
	a.held[lk.Token()] = lk
	return reply{Result: "ok", Token: lk.Token()}
}

// extend is Refresh with the TTL and a retry strategy (see the package
// comment). ErrNotObtained says the key is not this lock's: a refusal.
func (a *adapter) extend(req request) reply {
	lk, ok := a.held[req.Token]
	if !ok {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	ttl := time.Duration(req.TTLms) * time.Millisecond
	err := lk.Refresh(context.Background(), ttl, &redislock.Options{RetryStrategy: redislock.LinearBackoff(a.retry)})
	switch {
	case err == nil:
		return reply{Result: "ok"}
	case errors.Is(err, redislock.ErrNotObtained):
		return reply{Result: "refused", Error: err.Error()}
	}
	return reply{Result: "error", Error: err.Error()}
}

// release is Release; ErrLockNotHeld says the key was not this lock's.
func (a *adapter) release(req request) reply {
	lk, ok := a.held[req.Token]
	delete(a.held, req.Token)
	if !ok {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	err := lk.Release(context.Background())
	switch {
	case err == nil:
		return reply{Result: "ok"}
	case errors.Is(err, redislock.ErrLockNotHeld):
		return reply{Result: "refused", Error: err.Error()}
	}
	return reply{Result: "error", Error: err.Error()}
}
