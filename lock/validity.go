package lock

import "time"

// redlockDriftFloor is the constant Redis's Redlock description adds to the
// drift allowance, for the precision of the nodes' expiry.
const redlockDriftFloor = 2 * time.Millisecond

// Validity is how long a single-node lease may be relied on: the TTL less the
// time the acquire took and a drift allowance of ttl*drift. Not positive
// means the lease was already spent when it arrived.
func Validity(ttl, elapsed time.Duration, drift float64) time.Duration {
	return ttl - elapsed - time.Duration(float64(ttl)*drift)
}

// RedlockValidity is Redlock's arithmetic: TTL - elapsed - (TTL*drift + 2ms).
func RedlockValidity(ttl, elapsed time.Duration, drift float64) time.Duration {
	return Validity(ttl, elapsed, drift) - redlockDriftFloor
}

// Quorum is the majority of n nodes Redlock needs.
func Quorum(n int) int { return n/2 + 1 }
