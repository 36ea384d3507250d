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
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
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

// version is the pinned library version, set by locksim's build (-X).
var version = "devel"

// hold is one lock the client holds: the library's context and the
// function that releases it.
type hold struct {
	ctx    context.Context
	cancel context.CancelFunc
}

type adapter struct {
	locker rueidislock.Locker
	ttl    time.Duration
	held   map[string]hold // token -> the library's lock
}

func main() {
	a := &adapter{held: map[string]hold{}}
	defer func() {
		if a.locker != nil {
			a.locker.Close()
		}
	}()
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
	ctx, cancel, err := a.locker.TryWithContext(context.Background(), req.Key)
	if err != nil {
		if errors.Is(err, rueidislock.ErrNotLocked) {
			return reply{Result: "refused", Error: err.Error()}
		}
		return reply{Result: "error", Error: err.Error()}
	}
	token := newToken()
	a.held[token] = hold{ctx: ctx, cancel: cancel}
	// the keys expire KeyValidity after the try began, which is no
	// earlier than t0
	v := float64(a.ttl-time.Since(t0)) / float64(time.Millisecond)
	return reply{Result: "ok", Token: token, ValidityMs: &v}
}

// check is the application's look before it acts: the library's context,
// cancelled once the lock is not held any more.
func (a *adapter) check(req request) reply {
	h, ok := a.held[req.Token]
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
	h, ok := a.held[req.Token]
	if !ok {
		return reply{Result: "refused", Error: "not held by this client"}
	}
	delete(a.held, req.Token)
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
