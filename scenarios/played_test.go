package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// A Sentinel failover whose run ends before the sentinels promote the
// replica (down_after is longer than what is left of the run) did not act:
// the run is not played, with the reason, whatever its verdict.
func TestSentinelFailoverWithoutPromotionIsNotPlayed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts redis-server and three sentinels")
	}
	simtest.RequireRedisServer(t)
	s, err := scenarios.Parse("unpromoted.yaml", []byte(`name: unpromoted-failover
algorithm: setpx
backend: redis
replicas: 1
failover: {mode: sentinel, down_after: 1500ms}
options: {ttl: 300ms}
nodes: 1
clients: 2
duration: 700ms
hold: 20ms
faults:
  - {kind: failover, node: 0, at: 200ms}
expect:
  "*": safe
`))
	require.NoError(t, err)
	o, err := execute(t, s, "setpx", realTime)
	require.NoError(t, err)
	assert.False(t, o.AsExpected)
	require.Len(t, o.Unplayed, 1, "%q", o.Unplayed)
	assert.Regexp(t, `^fault 1 failover 0 .* promoted no replica: Sentinel announced no \+switch-master for locksim-n0 between the kill \(.*\) and the heal \(.*\); no sentinel even called the master down$`, o.Unplayed[0])
}
