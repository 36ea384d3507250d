package sim

import "github.com/locksim/locksim/sim/node"

// The node backends' names that a run's Config, its Result and its World
// speak in; package node defines them, with the rest of what runs the
// nodes.
type (
	ClusterConfig  = node.ClusterConfig
	Backend        = node.Backend
	Persistence    = node.Persistence
	Server         = node.Server
	FailoverConfig = node.FailoverConfig
	FailoverMode   = node.FailoverMode
	Cluster        = node.Cluster
)

const (
	BackendMiniredis = node.BackendMiniredis
	BackendRedis     = node.BackendRedis
	BackendExternal  = node.BackendExternal
	// BackendRedisCluster is a Redis Cluster of server processes.
	BackendRedisCluster = node.BackendRedisCluster

	PersistenceNone     = node.PersistenceNone
	PersistenceEverySec = node.PersistenceEverySec
	PersistenceAlways   = node.PersistenceAlways

	ServerRedis  = node.ServerRedis
	ServerValkey = node.ServerValkey

	FailoverSentinel = node.FailoverSentinel
	FailoverDirect   = node.FailoverDirect
)
