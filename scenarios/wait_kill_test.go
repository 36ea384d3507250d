package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
)

// A node killed while an emulated WAIT waits for a replica that never
// answers (replication cut) must end the WAIT: closing the server waits
// for every connection while the node's lock is held, and in virtual time
// a goroutine blocked on that lock stops the clock, so a WAIT that waited
// on a timer hung the run for good (found by locksim explore on
// setpx-wait). The run must finish, and client 0 never gets the lock.
func TestKillDuringEmulatedWaitEnds(t *testing.T) {
	s, err := scenarios.Parse("wait-kill.yaml", []byte(`
name: wait-kill
algorithm: setpx-wait
nodes: 1
replicas: 1
clients: 1
duration: 1s
hold: 20ms
seed: 1
faults:
  - kind: partition # the replica never acknowledges: every WAIT runs to its timeout
    groups: [[r0], [n0]]
    at: 0s
  - kind: kill-node # inside a WAIT: each lasts 200 ms of every 200-odd
    node: 0
    at: 300ms
    for: 100ms
`))
	require.NoError(t, err)
	for _, seed := range []uint64{1, 2, 3} {
		s.Seed = &seed
		o, err := execute(t, s, "setpx-wait", virtualTime)
		require.NoError(t, err)
		require.NotEqual(t, "", o.Dir)
	}
}
