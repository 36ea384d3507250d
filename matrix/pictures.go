package matrix

import "github.com/locksim/locksim/scenarios"

// picturesFor is which runs of a pair get a timeline and check.html: the
// runs a reader is sent to. A cell links to its first run that differs
// from the expectation, else to its first run (Cell.ShownRun), and the
// per-run links of matrix.html are followed mostly for runs that differ;
// so run 0 is always drawn and a repeat only when it is not as expected.
// The other repeats keep verdict.json, history.jsonl and summary.md.
// Drawing was most of a matrix's CPU in virtual time (the PNG encoding and
// rasterizing, then porcupine's page), so a 10-run matrix drawing every run
// spent nine tenths of its picture time on pages nobody opens.
func picturesFor(run int) func(scenarios.Outcome) bool {
	if run == 0 {
		return nil // always
	}
	return func(o scenarios.Outcome) bool { return !o.AsExpected }
}
