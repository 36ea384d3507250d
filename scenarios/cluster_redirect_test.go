package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/vocab"
)

// TestClusterReshardRedirects: in cluster-reshard-while-held the waiting
// client really meets ASK while the lock key's slot migrates, and a client
// that still sends to the old owner once the slot was given away meets
// MOVED (the holder's release does: it sent nothing while paused, so its
// slot table is the one from before the move; the waiter's go-redis
// reloads its table after an ASK and may reach the new owner directly),
// as the history's redirect records say.
func TestClusterReshardRedirects(t *testing.T) {
	simtest.RequireRedisServer(t)
	if testing.Short() {
		t.Skip("-short: runs a Redis Cluster of redis-server processes")
	}
	var s *scenarios.Scenario
	for _, b := range scenarios.Builtin() {
		if b.Name == "cluster-reshard-while-held" {
			s = b
		}
	}
	require.NotNil(t, s, "cluster-reshard-while-held is in the catalogue")
	o, err := executePlayed(t, s, "setpx", realTime)
	require.NoError(t, err)
	require.True(t, o.AsExpected, "verdict %s, not played: %v", o.Verdict, o.Unplayed)
	raw, err := os.Open(filepath.Join(o.Dir, report.FileHistory))
	require.NoError(t, err)
	defer raw.Close()
	h, err := history.ReadJSONL(raw)
	require.NoError(t, err)
	asks, moved := 0, 0
	for _, op := range h.Ops {
		switch {
		case op.Kind == history.KindFault && op.Target != nil && op.Target.Kind == vocab.KindClusterReshard:
			// the record names the slot's old owner and the master it went
			// to, so that the timeline draws the fault on their rows alone
			if assert.Len(t, op.Target.Nodes, 2, "the reshard's record names both masters") {
				assert.NotEqual(t, op.Target.Nodes[0], op.Target.Nodes[1])
			}
			assert.Positive(t, op.Target.Slot, "the reshard's record names the lock key's slot")
		case op.Kind != history.KindRedirect:
		case op.Client == 1 && op.Event == "ASK":
			asks++
		case op.Event == "MOVED":
			moved++
		}
	}
	assert.Positive(t, asks, "client 1 met ASK while the slot migrated")
	assert.Positive(t, moved, "a client met MOVED once the slot was given away")
}
