// Package checker decides whether mutual exclusion held in a locksim
// history. It is the third stage of the pipeline
//
//	Scenario --(sim.Run)--> History --(checker.Check)--> Result
//
// and depends only on package history (no Redis or network code), so a
// history.jsonl can be re-checked offline.
//
// Four checks, each with its own verdict:
//
//   - exclusion: the protected resource's own serial log, split by lock key,
//     judged by porcupine and, independently, by an exact sweep that also
//     builds the witnesses. Without fencing the sections are enter..exit;
//     with fencing they are runs of accepted writes of one lease.
//   - claim: the lock's promise. The windows [acquire returned, min(release
//     called, validity end)] of different clients must not overlap. Unsafe
//     here means the algorithm broke its contract (clock jump, failover,
//     restart without fsync); unsafe only at exclusion means a client acted
//     outside its lease (a GC pause after its check).
//   - fencing: the lock's tokens strictly grow, and the resource accepts
//     writes in token order.
//   - liveness: after the faults healed, the probe acquired the lock.
//
// Read gives the one reading of a history that the checks and the reports
// share (lease windows, sections, faults, failed acquires with their
// reasons), and Nodes its per-node view (whose token each node held, node
// states, clock offsets), derived from the acquires' per-node replies and
// the faults' targets.
//
// A partition (one key) longer than porcupine handles in time is cut where
// no operation is open and decided segment by segment, carrying every
// state a legal order can reach across each cut (linearize.go); shorter
// ones go to porcupine whole.
//
// Unknown is never a pass: a malformed history, a porcupine timeout or a
// disagreement between porcupine and the sweep make the check unknown.
package checker
