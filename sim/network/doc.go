// Package network is the simulated network between a run's clients, nodes,
// replicas, sentinels and the resource: its links (Link, Endpoint), the
// faults in force on them (LinkFault: delay with jitter, cut, reset) and the
// three ways it carries them: toxiproxy proxies in this process, a remote
// toxiproxy server driven through its HTTP API, or, for a run in virtual
// time, an in-memory network (Mem) whose connections are pipes (pipe.go)
// delivered through the run's vtime.Scheduler and whose proxies are Go
// values with toxiproxy's semantics (mem.go).
//
// It imports vtime, toxiproxy and the standard library; never package sim
// or the node backends, which use it: the node code serves and dials
// through Mem, the cluster puts proxies on links and retargets them at a
// failover, and the client loop carries its resource messages with
// Network.Transit.
package network
