package lock

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// Options are plain data; the zero value of each field takes the default in
// brackets.
type Options struct {
	TTL time.Duration // lock expiry [500ms]
	// Drift is the clock drift factor subtracted from a lease's validity
	// (validity = TTL - elapsed - TTL*Drift, plus 2 ms for Redlock) [0.01].
	Drift float64
	Retry RetryPolicy
	// NodeTimeout bounds one command to one node. Redlock needs it much
	// smaller than the TTL [multi-node designs: TTL/10, at least 5ms]; for
	// single-node designs 0 leaves commands to the connection's own timeouts,
	// which saves a context per command on the hot path.
	NodeTimeout time.Duration
	// Tokens makes each lease's unique value [128 random bits in hex].
	Tokens func() string
	// Owner identifies the client for reentrant designs, which store it in the
	// hash; leases of one owner nest [a fresh token].
	Owner string
	// Watchdog renews the TTL every TTL/3 while the lease is held (setpx,
	// reentrant, redlock, fenced).
	Watchdog bool
	// ValidityCheck asks the caller (the simulator's client loop) to check the
	// lease's remaining validity before entering; the designs only carry it.
	ValidityCheck bool
	// Fencing asks for fencing tokens; the fenced design always has them.
	Fencing bool
	// Tolerance is the setnx-getset design's allowance for client clock
	// differences (the article's 1 s) [1s].
	Tolerance time.Duration
	// Wait is how a blocking acquire (WaitFor) waits between attempts
	// [WaitPoll]; WaitNotify only for designs whose Info says Notify.
	Wait  Wait
	Clock Clock
	Hook  Hook
	// Renewed is told of each renewal that reaches no point (Renewal): one
	// a design's lock library made on its own timers, out of the client's
	// reach, and a watchdog renewal whose outcome is unknown (it timed
	// out, or the release stopped it first) [nothing].
	Renewed func(Renewal)
	// Seed seeds the design's own random choices (retry jitter); 0 keeps a
	// fixed default so runs stay reproducible.
	Seed uint64
}

// RetryPolicy drives the blocking acquire shared by all designs.
type RetryPolicy struct {
	Interval time.Duration // between attempts [50ms, as the articles poll]
	Jitter   time.Duration // random extra wait in [0, Jitter) [Interval/2]
	MaxTries int           // attempts in all; 0 means until ctx ends
}

// Defaulted returns o with every unset field at its default: New applies
// it, and sim.Config.Resolve for a run.
func (o Options) Defaulted() Options {
	if o.TTL == 0 {
		o.TTL = 500 * time.Millisecond
	}
	if o.Drift == 0 {
		o.Drift = 0.01
	}
	if o.Retry.Interval == 0 {
		o.Retry.Interval = 50 * time.Millisecond
	}
	if o.Retry.Jitter == 0 {
		o.Retry.Jitter = o.Retry.Interval / 2
	}
	if o.Tokens == nil {
		o.Tokens = RandomToken
	}
	if o.Owner == "" {
		o.Owner = o.Tokens()
	}
	if o.Tolerance == 0 {
		o.Tolerance = time.Second
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	if o.Hook == nil {
		o.Hook = noHook
	}
	if o.Renewed == nil {
		o.Renewed = func(Renewal) {}
	}
	return o
}

// Validate names the first field that cannot work.
func (o Options) Validate() error {
	switch {
	case o.TTL < time.Millisecond:
		return fmt.Errorf("ttl %v: must be at least 1ms", o.TTL)
	case o.Drift < 0 || o.Drift >= 0.5:
		return fmt.Errorf("drift %v: must be in [0, 0.5)", o.Drift)
	case o.Retry.Interval < 0:
		return fmt.Errorf("retry_delay %v: must not be negative", o.Retry.Interval)
	case o.Retry.Jitter < 0:
		return fmt.Errorf("retry jitter %v: must not be negative", o.Retry.Jitter)
	case o.Retry.MaxTries < 0:
		return fmt.Errorf("retries %d: must not be negative", o.Retry.MaxTries)
	case o.Wait != WaitPoll && o.Wait != WaitNotify:
		return fmt.Errorf("wait %v: must be poll or notify", o.Wait)
	case o.NodeTimeout < 0:
		return fmt.Errorf("node_timeout %v: must not be negative", o.NodeTimeout)
	}
	return nil
}

// DefaultNodeTimeout is the per-node bound Redlock-style designs use when
// none is given: a tenth of the TTL, at least 5 ms.
func DefaultNodeTimeout(ttl time.Duration) time.Duration {
	return max(ttl/10, 5*time.Millisecond)
}

// RandomToken returns 128 random bits in hex. It is on every acquire's
// path, so it encodes into a stack buffer: one allocation, the string.
func RandomToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("lock: crypto/rand failed: %v", err)) // cannot happen on supported platforms
	}
	var h [32]byte
	hex.Encode(h[:], b[:])
	return string(h[:])
}
