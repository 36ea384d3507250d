package lock

// SetNoFallback makes every notified waiter wait for its unlock message
// alone, never for the holder's PTTL (a mutant for the liveness check's
// tests); the returned function restores the real waiter.
func SetNoFallback(on bool) (restore func()) {
	was := noFallback.Swap(on)
	return func() { noFallback.Store(was) }
}

// UnlockChannel is the notification channel of a lock key.
var UnlockChannel = unlockChannel
