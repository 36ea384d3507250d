// Package rediscluster runs a Redis Cluster of real redis-server (or
// valkey-server) processes on loopback and plays its faults: it starts the
// nodes, creates the cluster with CLUSTER MEET, ADDSLOTSRANGE and
// REPLICATE, reads the current roles and slot owners, kills, restarts,
// pauses and resumes nodes, fails a replica over (CLUSTER FAILOVER, or a
// killed master's election) and measures the election, and moves a slot
// step by step (SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE) so that
// clients can be made to meet ASK and MOVED. The nodes' cluster bus runs
// through proxies of its own (bus.go), so that it can cut a master off
// from the rest of the cluster (IsolateMaster) and watch it refuse writes
// and its replica win the election. Its Dialer lets go-redis's
// ClusterClient reach every node, redirect targets included, through a
// proxy per node.
//
// It may import nothing from this module but internal/pids (its tests use
// it to check that no process outlives Stop), so that the simulator can
// build its cluster backend on it without a cycle.
package rediscluster
