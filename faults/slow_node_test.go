package faults_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// A slow-node entry parses, runs in virtual time, and every command to
// the node while it is on takes its delay longer: the lock's operations
// in its window last at least by, those before it well under.
func TestSlowNodeScenario(t *testing.T) {
	s, err := scenarios.Parse("slow.yaml", []byte(`name: slow
algorithm: setpx
options: {ttl: 1s}
clients: 1
duration: 1s
hold: 50ms
faults:
  - {kind: slow-node, node: 0, by: 40ms, at: 400ms, for: 300ms}
`))
	require.NoError(t, err)
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	res, _ := run(t, cfg)

	i := slices.IndexFunc(res.History.Ops, func(o history.Op) bool { return o.Kind == history.KindFault })
	require.GreaterOrEqual(t, i, 0, "no fault record")
	f := res.History.Ops[i]
	require.Equal(t, history.OK, f.Outcome, f.Err)
	require.NotNil(t, f.Target)
	assert.Equal(t, vocab.KindSlowNode, f.Target.Kind)
	assert.Equal(t, []int{0}, f.Target.Nodes)
	assert.Equal(t, "slow-node 0 by 40ms (at 400ms, for 300ms)", f.Fault)

	var before, during int
	for _, o := range res.History.Ops {
		if o.Client != 0 || (o.Kind != history.KindAcquire && o.Kind != history.KindRelease) {
			continue
		}
		switch took := o.Return - o.Call; {
		case o.Return < f.Call:
			before++
			assert.Less(t, took, 40*time.Millisecond, "%s at %v before the fault", o.Kind, o.Call)
		case o.Call >= f.Call && o.Return <= f.Return:
			during++
			assert.GreaterOrEqual(t, took, 40*time.Millisecond, "%s at %v under the fault", o.Kind, o.Call)
		}
	}
	assert.Positive(t, before, "no operation before the fault")
	assert.Positive(t, during, "no operation under the fault")
}
