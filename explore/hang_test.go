package explore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// TestKillOfPausedNodeEnds plays a drawn schedule whose kill-node comes
// while the node is paused with a command held and a client redials it
// at the same instant: the run must end (a hang fails the test by its
// timeout), so that such a schedule cannot stop an exploration's worker.
func TestKillOfPausedNodeEnds(t *testing.T) {
	s, err := scenarios.LoadFile("testdata/kill-paused-node.yaml")
	require.NoError(t, err)
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	o, err := scenarios.Execute(ctx, s, "setpx", scenarios.RunOptions{Out: t.TempDir()})
	require.NoError(t, err)
	require.NotEmpty(t, o.Verdict)
}
