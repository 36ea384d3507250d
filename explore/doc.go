// Package explore looks for failures nobody wrote down: it generates
// random fault schedules for a lock design, runs each in virtual time,
// checks it, keeps the runs whose verdict is not safe, and shrinks each
// distinct one to a small scenario that still fails.
//
// The pipeline, for one design:
//
//  1. Generate: schedule j of a seed is a scenarios.Scenario of the usual
//     schema (Generate), drawn from a random source seeded by (seed, j)
//     only, so the same seed and index always give the same schedule, and a
//     shard i of n runs the indexes j with j mod n == i.
//  2. Run: sim.Run with VirtualTime in a bubble of the vtime.Host the
//     context carries, then checker.Check; no report files are written for
//     these bulk runs.
//  3. Keep: a run whose verdict is unsafe, deadlock or unknown is a
//     violation, grouped by its Signature: the check that failed, its
//     verdict and the fault kinds active at the witness.
//  4. Shrink: the most promising schedule of each signature (the fewest
//     faults, then the shortest run, then the lowest index; the next two
//     when it does not meet the rule), the most frequent signature first,
//     loses faults (a group
//     that fires together as one), gets point triggers in place of times,
//     fewer clients and nodes, a shorter run and shorter faults, one step
//     at a time; a step is kept only while the same check still fails in
//     at least 8 of 10 reruns (Rule), and a length only while three
//     quarters of it fails too (a margin for real time). A schedule short
//     of the rule may first be widened (a longer hold), and a fault may go
//     with the hold widened in its place. Last, the circumstances that
//     reproduce most often are kept, ties going to the most margin for
//     real time: a fault at a point moves to the loop point where it
//     fails most often, then a node's or a link's fault is triggered by
//     any client's visit, a point by its first visit, and the hold grows
//     (polishRobust); a fault that then is not needed goes
//     (fewerAfterPolish).
//  5. Replay: the shrunk scenario is written as YAML with its expect and
//     its reproduction rate measured in virtual time; once every signature
//     is shrunk, the causes (the shrunk scenarios' faults by kind, trigger
//     and length class: causes.go) are confirmed, on request, on real
//     redis-server processes in real time, where one that falls short of
//     the rule is strengthened and confirmed again (robust.go), and each is
//     run once more through scenarios.Execute for a normal run directory
//     zoomed on the witness of its check.
//
// A Timeout bounds it all (budget.go): the search gets a share, shrinking
// and confirming the rest but a reserve for the last replays and writing;
// what a phase's end leaves undone is recorded in the report, not lost.
//
// Reruns vary the seed: rerun i of a scenario with seed s runs it with seed
// s+i. In virtual time a run with a given seed plays almost the same
// interleaving every time, so ten reruns with one seed would mostly say
// that the run is deterministic; ten seeds vary the clients' random
// choices (retry jitter, network jitter) and with them the interleaving,
// so 8 of 10 says that the faults, not one lucky interleaving, cause the
// violation. Rerun 0 is the scenario's own seed and must fail, so that
// `locksim run` on the shrunk file, which plays that seed, reproduces it.
//
// Explore is the engine behind `locksim explore`; Test is the same for a
// lock author's own go test.
package explore
