// Package report is the last stage of a locksim run:
//
//	Scenario --(run)--> History --(checker.Check)--> Result --(report)--> files
//
// WriteRun turns one run into a run directory:
// scenario.yaml, history.jsonl, verdict.json, check.html, timeline.svg,
// timeline.png and summary.md. The directory appears whole or not at all,
// so a directory that exists is a finished report, never the remains of a
// run that failed halfway. RunDir names it (<stamp>-<design>-s<seed>),
// and UpdateLink points the scenario's latest-<design> and latest links at
// it.
//
// The package only reads what earlier stages produced; it never re-runs or
// re-checks anything, so what the files say is exactly what the checker
// said about the history that sits next to them.
package report
