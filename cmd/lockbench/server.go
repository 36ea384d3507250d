package main

import (
	"fmt"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// serverKind checks --server, --backend and --redis-server together and
// returns the server the redis backend is to run: a value it does not
// know, a server other than redis on miniredis, or a binary that is not
// there is one line naming the flag.
func (f *flags) serverKind() (sim.Server, error) {
	s := sim.Server(f.server)
	if err := node.CheckServer(s); err != nil || s == "" {
		return "", fmt.Errorf("--server %q: want %s", f.server, node.ServerNames())
	}
	if s != sim.ServerRedis && sim.Backend(f.backend) != sim.BackendRedis {
		return "", fmt.Errorf("--server %s is for --backend redis, not --backend %s", f.server, f.backend)
	}
	if sim.Backend(f.backend) != sim.BackendRedis && f.redisServer == "" {
		return s, nil
	}
	if _, err := node.LookupServer(s, f.redisServer); err != nil {
		if f.redisServer != "" {
			return "", fmt.Errorf("--redis-server %q: %w (or use --backend miniredis)", f.redisServer, err)
		}
		if s != sim.ServerRedis {
			return "", fmt.Errorf("--server %s: %w (or use --server redis)", f.server, err)
		}
		return "", fmt.Errorf("--redis-server %q: %w (or use --backend miniredis)", f.redisServer, err)
	}
	return s, nil
}
