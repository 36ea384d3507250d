package vocab

// Verdict is the outcome of one check or of a whole run, or what a
// scenario expects of either.
type Verdict string

const (
	// Safe: the check looked at the evidence and found no violation.
	Safe Verdict = "safe"
	// Unsafe: a violation was found; the check carries a witness.
	Unsafe Verdict = "unsafe"
	// Deadlock: after every fault healed, the liveness probe could not
	// acquire the lock.
	Deadlock Verdict = "deadlock"
	// Unknown: the checker could not decide (porcupine timed out, the
	// history is malformed, or porcupine and the sweep disagree), or the
	// run tested nothing. It is never a pass.
	Unknown Verdict = "unknown"
	// Covered: claim only, for fenced designs. Leases overlapped, but the
	// fencing tokens grew and the resource rejected the stale writes, so
	// the data was protected; it is not a failure of the run.
	Covered Verdict = "covered"
	// Skipped: the check does not apply to this history (no fencing
	// tokens, no probe, nothing reached the resource).
	Skipped Verdict = "skipped"
	// Any: expected only; not asserted, the design is racy without
	// faults, so a run may come out either way.
	Any Verdict = "any"
	// Skip: expected only; the scenario does not apply to the design and
	// is not run for it.
	Skip Verdict = "skip"
)
