// Package node runs the Redis nodes a simulated run plays on: a Cluster
// (StartCluster, ClusterConfig) of masters and their replicas on one of
// three backends (embedded miniredis, redis-server or valkey-server
// processes, external servers), each master with its own node clock that
// key expiry follows, the faults a node can suffer as optional
// capabilities (ClockController, Pauser, TimedPauser, ProcessController),
// failover (Sentinel's, direct or emulated), the programs a backend starts
// (server.go) and the observers that read what the nodes hold from the
// harness's side (observe.go).
//
// It imports history, vtime, sim/network (the proxies in front of the
// nodes, the in-memory connections), sim/recorder (where the observers record) and internal packages; never
// package sim, which imports it and passes in what a run owns (its
// recorder and scheduler).
package node
