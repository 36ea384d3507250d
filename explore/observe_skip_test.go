package explore

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/sim/node"
)

// The observer's skipped reads (node.SkipUnchangedReads) leave every
// history byte for byte as reading at every tick does, over schedules of
// every default fault kind (kills, restarts, clock jumps and rates, pauses,
// cuts) and designs on one node and on several, with and without
// failovers.
func TestObserverSkipsKeepHistories(t *testing.T) {
	defer func(v bool) { node.SkipUnchangedReads = v }(node.SkipUnchangedReads)
	ctx := hostCtx(t)
	for _, algo := range []string{"setpx", "redlock", "rwlock-hash"} {
		cfg := Config{Algorithm: algo, Clients: 2, Nodes: 3, Duration: 2 * time.Second, Seed: 11}.withDefaults()
		for j := range 12 {
			s := Generate(cfg, LoopPoints, j)
			var hist [2][]byte
			var nodeOps int
			for i, skip := range []bool{false, true} {
				node.SkipUnchangedReads = skip
				o, err := runOnce(ctx, s, algo, uint64(j)+1)
				require.NoError(t, err)
				b, err := json.Marshal(o.res.History)
				require.NoError(t, err)
				hist[i] = b
				for _, op := range o.res.History.Ops {
					if op.Kind == "node" {
						nodeOps++
					}
				}
			}
			require.Positive(t, nodeOps, "%s schedule %d: no node records", algo, j)
			require.Equal(t, string(hist[0]), string(hist[1]), "%s schedule %d: the skips changed the history", algo, j)
		}
	}
}
