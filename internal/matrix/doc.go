// Package matrix runs many scenario x design pairs and tabulates their
// verdicts against the scenarios' expectations: Run plans every pair
// before anything runs (a pair the scenario skips, or one the backend
// cannot hold, is decided up front with its reason), runs each pair
// Config.Runs times in parallel through run.Execute, and writes
// matrix.md, matrix.json and matrix.html under OUT/matrix/<stamp>/; Read
// loads such a directory back (the review page does).
//
// It is its own package because it is a different noun from a scenario:
// package scenarios knows one scenario and how to run it once, and this
// package only ever reaches it through run.Execute and the
// scenario's public methods, so the import goes one way (matrix ->
// scenarios) and the scenario package links no matrix code. The matrix
// table's stylesheet is internal/style.Matrix, which the review page
// shares.
package matrix
