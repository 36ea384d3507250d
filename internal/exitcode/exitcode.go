// Package exitcode is the one table of exit codes that locksim and
// lockbench share, so that a script reads every command's status the same
// way.
package exitcode

const (
	// OK: every verdict as expected (or, for lockbench, the measuring is
	// done and written).
	OK = 0
	// Mismatch: a verdict differs from its expectation (locksim only).
	Mismatch = 1
	// Usage: bad input or usage, refused before any work.
	Usage = 2
	// Failed: the tool itself failed (nodes did not start, files could
	// not be written), or the run was interrupted (Ctrl-C, SIGTERM): what
	// it wrote is marked incomplete, never a result.
	Failed = 3
)
