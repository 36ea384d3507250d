package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// A Sentinel failover whose run ends before the sentinels promote the
// replica (down_after is longer than what is left of the run) did not act:
// the run is not played, with the reason, whatever its verdict.
//
// The heal comes at the run's end, about 500 ms after the kill; no
// sentinel can call the master down before down_after (1.5 s) of silence.
// On a loaded machine the wall-clock run can stretch the kill-to-heal
// window past down_after, where a sentinel may call it down or even
// promote: such a run does not test the claim and is run again, up to
// wallClockTries times in all.
func TestSentinelFailoverWithoutPromotionIsNotPlayed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts redis-server and three sentinels")
	}
	simtest.RequireRedisServer(t)
	const downAfter = 1500 * time.Millisecond
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
	for try := 1; try <= wallClockTries; try++ {
		o, err := execute(t, s, "setpx", realTime)
		require.NoError(t, err)
		window := killToHeal(t, o.Dir)
		if window >= downAfter {
			t.Logf("try %d of %d: the heal came %v after the kill, not within down_after (%v); running it again", try, wallClockTries, window, downAfter)
			continue
		}
		assert.False(t, o.AsExpected)
		require.Len(t, o.Unplayed, 1, "%q", o.Unplayed)
		assert.Regexp(t, `^fault 1 failover 0 .* promoted no replica: Sentinel announced no \+switch-master for locksim-n0 between the kill \(.*\) and the heal \(.*\); no sentinel even called the master down$`, o.Unplayed[0])
		return
	}
	t.Fatalf("in %d tries the heal never came within down_after (%v) of the kill: the machine is too loaded to test this", wallClockTries, downAfter)
}

// killToHeal is how long the run's failover fault held its node down:
// from its record's call (the kill) to its return (the heal).
func killToHeal(t *testing.T, dir string) time.Duration {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, report.FileHistory))
	require.NoError(t, err)
	defer f.Close()
	h, err := history.ReadJSONL(f)
	require.NoError(t, err)
	for _, op := range h.Ops {
		if op.Kind == history.KindFault && op.Target != nil && op.Target.Kind == vocab.KindFailover {
			return op.Return - op.Call
		}
	}
	t.Fatalf("no failover fault record in %s", dir)
	return 0
}
