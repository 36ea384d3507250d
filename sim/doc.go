// Package sim is the simulated world a lock design runs in, and the run loop
// that plays one configuration in it:
//
//	Config --(Run)--> Result{History, Notes, Unfired}
//
// The world (World) holds:
//
//   - nodes: the Redis masters (and replicas) of a Cluster, on embedded
//     miniredis, real redis-server processes or external servers (package
//     sim/node), each with its own node clock that key expiry follows;
//   - clients: simulated processes (Client), each holding one lock.Locker,
//     its own ClientClock, through which the design reads time, and a Gate
//     that every step passes, so a fault can pause or crash the client at an
//     exact point (the loop's points, vocab.PointBeforeAcquire and the rest, and
//     the designs' own, announced through lock.Options.Hook);
//   - the network (package sim/network): the links between clients, nodes,
//     replicas and the resource, carried through toxiproxy proxies or in
//     memory, on which faults add delay, cuts and resets;
//   - the resource (Resource): the thing the lock protects, with its own
//     serial log and, with fencing, its token check;
//   - the fault schedule: the planned faults (Planned, each a Fault with a
//     Trigger), started at a true time or when a client reaches a point, and
//     healed at the end;
//   - the recorder (package sim/recorder), which stamps everything in true
//     time.
//
// Run starts the cluster, lets every client cycle (acquire, validity check,
// enter, hold, exit, release) while the faults play, heals them all, probes
// liveness with a fresh client and stops everything it started.
//
// In virtual time (Config.VirtualTime) Run plays the run under a
// vtime.Scheduler seeded with the run's seed: the in-memory network's
// deliveries (memPipe), read deadlines, sleeps, fault timers, gates and
// the ticks of observers that read through a connection go through it, so
// that one seed gives one history, byte for byte; Replay checks that. The
// observer of in-process nodes reads as its tick wakes it, before the
// instant's first pick.
//
// sim imports its subsystems, which never import it: sim/node (the
// nodes), sim/network (the links) and sim/recorder (the recorder). The
// names of the node backends that Config and Result speak in are aliases
// of package node's (backend.go).
//
// The history a run records is made of the types of package history (Op,
// Kind, Outcome, History), which package checker reads; sim keeps aliases of
// them for its own code. A history.jsonl written by one run can be read back
// and checked again offline without the simulator.
package sim
