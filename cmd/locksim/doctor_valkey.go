package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// valkeyChecks say whether --server valkey can run here: valkey-server and
// its version, and a valkey-sentinel that answers. Valkey is optional (the
// redis backend runs Redis unless asked), so a missing one is n/a, not a
// failed check.
func valkeyChecks(ctx context.Context) []check {
	s := sim.ServerValkey
	path, err := node.LookupServer(s, "")
	if err != nil {
		return []check{{s.Binary(), false, fmt.Sprintf("not found in PATH: needed only for --server valkey (%s)", s.Install())}}
	}
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return []check{{s.Binary(), false, fmt.Sprintf("%s --version: %v", path, err)}}
	}
	checks := []check{{s.Binary(), true, fmt.Sprintf("%s (%s), for --server valkey", strings.TrimSpace(string(out)), path)}}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd, err := node.CheckSentinel(ctx, s, "")
	if err != nil {
		return append(checks, check{s.SentinelBinary(), false, fmt.Sprintf("%v: needed for failover on --server valkey", err)})
	}
	return append(checks, check{s.SentinelBinary(), true, cmd + " starts and answers SENTINEL MASTERS"})
}
