package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/sim/simtest"
)

// doctor --addrs says, per server, whether it answers; a server that does
// not is a failed check (exit 3), a malformed address names itself.
func TestDoctorAddrs(t *testing.T) {
	_, addrs := startServers(t, 1)
	closed := closedAddr(t)
	stdout, _, code := execute(t, "doctor", "--addrs", addrs[0]+","+closed+",nohost")
	assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+node 0\s+`+regexp.QuoteMeta(addrs[0])+` answers PING$`), stdout)
	assert.Regexp(t, regexp.MustCompile(`(?m)^FAIL\s+node 1\s+`+regexp.QuoteMeta(closed)+` does not answer PING`), stdout)
	assert.Regexp(t, regexp.MustCompile(`(?m)^FAIL\s+node 2\s+--addrs "nohost"`), stdout)
	assert.Equal(t, exitHarness, code)
}

// doctor reports Valkey with its version and a valkey-sentinel that
// answers; without it the line is n/a (Valkey runs only when asked), not
// a failed check.
func TestDoctorValkey(t *testing.T) {
	if _, err := node.LookupServer(sim.ServerValkey, ""); err == nil {
		stdout, _, _ := execute(t, "doctor")
		assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+valkey-server\s+Valkey server v=\d+\.\d+\.\d+ .*for --server valkey$`), stdout)
		assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+valkey-sentinel\s+\S+ starts and answers SENTINEL MASTERS$`), stdout)
	} else if os.Getenv(simtest.RequireEnv) == "1" {
		t.Fatalf("%v (%s=1 makes this a failure)", err, simtest.RequireEnv)
	}
	t.Setenv("PATH", t.TempDir())
	stdout, _, _ := execute(t, "doctor")
	assert.Regexp(t, regexp.MustCompile(`(?m)^n/a\s+valkey-server\s+not found in PATH: needed only for --server valkey`), stdout)
	assert.NotRegexp(t, regexp.MustCompile(`(?m)^FAIL\s+valkey`), stdout)
}

// doctor says per server whether it starts a Redis Cluster as the cluster
// scenarios use it; without the server the line is n/a (a cluster runs
// only when a scenario asks for one), not a failed check.
func TestDoctorCluster(t *testing.T) {
	simtest.RequireRedisServer(t)
	stdout, _, _ := execute(t, "doctor")
	assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+cluster \(redis\)\s+redis-server starts a cluster of 6 nodes \(3 masters, a replica each\) in \S+, for --backend redis-cluster$`), stdout)
	if _, err := node.LookupServer(sim.ServerValkey, ""); err == nil {
		assert.Regexp(t, regexp.MustCompile(`(?m)^ok\s+cluster \(valkey\)\s+valkey-server starts a cluster .* --server valkey$`), stdout)
	}
	t.Setenv("PATH", t.TempDir())
	stdout, _, _ = execute(t, "doctor")
	assert.Regexp(t, regexp.MustCompile(`(?m)^n/a\s+cluster \(redis\)\s+redis-server not found in PATH: needed for --backend redis-cluster \(`), stdout)
	assert.Regexp(t, regexp.MustCompile(`(?m)^n/a\s+cluster \(valkey\)\s+valkey-server not found in PATH: needed for --backend redis-cluster --server valkey`), stdout)
	assert.NotRegexp(t, regexp.MustCompile(`(?m)^FAIL\s+cluster`), stdout)
}
