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
)

// TestClusterReshardRedirects: in cluster-reshard-while-held the waiting
// client really meets ASK while the lock key's slot migrates and MOVED
// once it was given away, as its history's redirect records say, and
// the fault's record keeps the slot's move.
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
	met := map[string]int{}
	for _, op := range h.Ops {
		if op.Kind == history.KindRedirect && op.Client == 1 {
			met[op.Event]++
		}
	}
	assert.Positive(t, met["ASK"], "client 1 met ASK while the slot migrated")
	assert.Positive(t, met["MOVED"], "client 1 met MOVED once the slot was given away")
}
