package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// notifyOnCluster: client 1 starts once client 0 holds the lock, is
// refused, and waits by notification; client 0 releases after 300 ms,
// long before its 6 s lease would end.
const notifyOnCluster = `name: notify-on-cluster
algorithm: [setpx, reentrant, fenced, rwlock-counted]
backend: redis-cluster
nodes: 3
replicas: 0
options: {ttl: 6s, wait: notify}
clients: 2
duration: 3s
hold: 300ms
think: 3s
seed: 1
faults:
  - kind: pause-client
    client: 1
    when: {point: before-acquire}
    until: {client: 0, point: after-acquire}
    for: 2s
require:
  - {client: 1, event: acquire, outcome: fail, while: {client: 0, in: lease}}
expect:
  "*": safe
`

// TestNotifyOnACluster: on a Redis Cluster the notifying designs'
// release scripts run (the unlock channel shares the lock key's slot, so
// no CROSSSLOT) and publish, and the waiter, subscribed at its channel's
// master as go-redis's ClusterClient subscribes, is woken by the message:
// it acquires soon after the release, not after the holder's remaining
// PTTL (about 5.7 s, past the 3 s run), which is all a waiter without the
// message has.
//
// The release takes effect somewhere between its call and its return, and
// its script publishes as it deletes the key; the woken waiter's grant
// can come back before the holder's client has recorded the release's
// return (on a loaded machine it can). So the grant is measured
// from the release's call: after it, and within wakeBound of it.
func TestNotifyOnACluster(t *testing.T) {
	// wakeBound lies between what the message takes (a few ms, the
	// release's own round trip included) and the holder's remaining PTTL.
	const wakeBound = 2 * time.Second
	simtest.RequireRedisServer(t)
	s, err := scenarios.Parse("notify-on-cluster.yaml", []byte(notifyOnCluster))
	require.NoError(t, err)
	for _, algo := range s.Algorithms() {
		t.Run(algo, func(t *testing.T) {
			o, err := executePlayed(t, s, algo, realTime)
			require.NoError(t, err)
			require.True(t, o.AsExpected, "verdict %s, not played: %v (%s)", o.Verdict, o.Unplayed, o.Dir)
			f, err := os.Open(filepath.Join(o.Dir, "history.jsonl"))
			require.NoError(t, err)
			h, err := history.ReadJSONL(f)
			_ = f.Close()
			require.NoError(t, err)
			var released, acquired time.Duration = -1, -1
			for _, op := range h.Ops {
				switch {
				case op.Kind == history.KindRelease && op.Client == 0 && released < 0:
					require.Equal(t, history.OK, op.Outcome, "client 0's release: %s", op.Err)
					released = op.Call
				case op.Kind == history.KindAcquire && op.Client == 1 && op.Outcome == history.OK && acquired < 0:
					acquired = op.Return
				}
			}
			require.True(t, released >= 0 && acquired > released, "release called at %v, client 1's first grant at %v", released, acquired)
			require.Less(t, acquired-released, wakeBound,
				"client 1 acquired %v after the release was called: the unlock message did not wake it", acquired-released)
		})
	}
}
