package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// registerServer adds --server: which program the redis backend starts
// as its nodes and sentinels (sim.Server).
func registerServer(fl *pflag.FlagSet, v *string) {
	fl.StringVar(v, "server", string(sim.ServerRedis), "what --backend redis starts: redis (redis-server, redis-sentinel) or valkey (valkey-server, valkey-sentinel)")
}

// checkServer checks --server against the backend: a server other than
// redis is for the backend that starts servers, so --backend miniredis
// or external (--addrs) with it is a contradiction, not a choice to
// ignore.
func checkServer(server, backend string, backendGiven, external bool) error {
	if err := node.CheckServer(sim.Server(server)); err != nil || server == "" {
		return fmt.Errorf("--server %q: want %s", server, node.ServerNames())
	}
	if sim.Server(server) == sim.ServerRedis {
		return nil
	}
	switch {
	case external:
		return fmt.Errorf("--server %s is for --backend redis, which starts its servers; --addrs servers are whatever you run", server)
	case backendGiven && !sim.Backend(backend).RunsServer():
		return fmt.Errorf("--server %s is for --backend redis, not --backend %s", server, backend)
	}
	return nil
}

// serverOverride is the scenario override --server gives: none for the
// default, so that a scenario file's own server stands.
func serverOverride(server string, changed func(string) bool) string {
	if !changed("server") {
		return ""
	}
	return server
}

// checkReviewServer checks review's --server: its bench and the
// catalogue's redis-backend scenarios run on that server, so a server
// asked for by name must be there (no fallback to miniredis, as for a
// missing redis-server).
func checkReviewServer(server string) error {
	if err := checkServer(server, "", false, false); err != nil {
		return err
	}
	if sim.Server(server) == sim.ServerRedis {
		return nil
	}
	if _, err := node.LookupServer(sim.Server(server), ""); err != nil {
		return fmt.Errorf("--server %s: %w", server, err)
	}
	return nil
}
