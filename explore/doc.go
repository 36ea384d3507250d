// Package explore looks for failures nobody wrote down: it generates
// random fault schedules for a lock design, runs each in virtual time,
// checks it, keeps the runs whose verdict is not safe, and shrinks each
// distinct one to a small scenario that still fails.
//
// The pipeline, for one design:
//
//  1. Generate: schedule j of a seed is a scenarios.Scenario of the usual
//     schema (Generate), drawn from a random source seeded by (seed, j)
//     only, then steered toward the (point, kind) pairs not yet reached
//     (see below), and a shard i of n runs the indexes j with j mod n == i.
//  2. Run: sim.Run with VirtualTime in a bubble of the vtime.Host the
//     context carries, then checker.Check; no report files are written for
//     these bulk runs.
//  3. Keep: a run whose verdict is unsafe, deadlock or unknown is a
//     violation, grouped by its Signature: the check that failed, its
//     verdict and the fault kinds active at the witness.
//  4. Shrink: the most promising schedule of each signature (the fewest
//     faults, then the shortest run, then the lowest index; the next two
//     when its own run does not fail), the most frequent signature first,
//     loses faults (a group that fires together as one), gets point triggers in place of times,
//     fewer clients and nodes, a shorter run and shorter faults, one step
//     at a time; a step is kept only while the changed scenario's own
//     seed's run still fails the same check (failsOnce: in virtual time a
//     run is a function of its scenario and seed, so one run is the
//     verdict), and a length only while three quarters of it fails too (a
//     margin for real time). A fault may go with the hold widened in its
//     place. Last, the scenario gets the most margin for real time that
//     still fails (polishMargin): a node's or a link's fault triggered by
//     any client's visit, a point by its first visit, a longer hold; a
//     fault that then is not needed goes (fewerAfterPolish).
//  5. Replay: the shrunk scenario is written as YAML with its expect and
//     its reproduction rate measured in virtual time; once every signature
//     is shrunk, the causes (the shrunk scenarios' faults by kind, trigger
//     and length class: causes.go) are confirmed, on request, on real
//     redis-server processes in real time, where one that falls short of
//     the rule is strengthened and confirmed again (robust.go), and each is
//     run once more through run.Execute for a normal run directory
//     zoomed on the witness of its check.
//
// A Timeout bounds it all (budget.go): the search gets a share, shrinking
// and confirming the rest but a reserve for the last replays and writing;
// what a phase's end leaves undone is recorded in the report, not lost.
//
// The reproduction rate a shrunk scenario is reported with, and the rule
// its confirmation on redis-server in real time is held to (Rule: at least
// 8 of 10), vary the seed: rerun i of a scenario with seed s runs it with
// seed s+i. In virtual time one seed replays one interleaving exactly; ten
// seeds vary the clients' random choices (retry jitter, network jitter)
// and with them the interleaving, so 8 of 10 says that the faults, not one
// lucky interleaving, cause the violation. Rerun 0 is the scenario's own
// seed and must fail, so that `locksim run` on the shrunk file, which
// plays that seed, reproduces it.
//
// Coverage and the guided draw. Every exploration counts, for each of the
// design's points and each fault kind, how many faults of the kind
// started at the point (Coverage, coverage.go): the grid in summary.md.
// Random drawing is guided by it (guide.go): schedule j is drawn as
// Generate draws it, then one of its faults is steered to a (point, kind)
// pair drawn with a weight that falls with the times the pair was reached
// (and, by half, with the steered runs that missed it). To keep the same
// seed drawing the same schedules, what steers schedule j is only the
// tally of whole batches of 32 of the shard's schedules that come before
// j's batch but one: a worker about to draw the first schedule of a batch
// waits until those are all done, and their counts add up in any order,
// so neither the number of workers nor the order runs finish in changes
// a draw. The runs are in virtual time, where a seed replays its run's
// interleaving, so the tally is the same on every machine too (a run whose
// trigger came only through a rare interleaving could tip a later draw;
// --unguided rules even that out). The shard layout is part of
// the draw (a shard is steered by its own runs); --unguided draws schedule
// j from (seed, j) alone.
//
// The bounded sweep (Config.Exhaustive, exhaustive.go) replaces random
// draws by every single-fault schedule: each kind, each target it takes,
// each point by each client at visits 1 to 3 and two times, sizes and
// lengths below and above the TTL and around the drift margin. Clients
// are alike, and so are a multi-node design's nodes (it asks them all at
// once), so two schedules that differ by a renaming are one: a schedule
// runs only when it is its class's representative, its clients (and
// nodes) numbered in order of first appearance. The singles run first;
// then, while --runs or --for lasts, pairs of singles in an order spread
// over every kind, each class of pairs once. What ran, what broke and a
// statement of the bound go into the report (Sweep); the violations take
// the usual way (keep, shrink, replay).
//
// Explore is the engine behind `locksim explore`; Test is the same for a
// lock author's own go test.
package explore
