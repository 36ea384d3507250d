package explore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// TestKillOfPausedNodeEnds plays drawn schedules that once could keep a
// run in virtual time from ending: a kill-node that comes while the node
// is paused with a command held and a client redials it at the same
// instant, and a notified waiter under a client's delay and clock skew.
// Each run must end (a hang fails the test by its timeout), so that no
// such schedule can stop an exploration's worker.
func TestKillOfPausedNodeEnds(t *testing.T) {
	for _, file := range []string{"testdata/kill-paused-node.yaml", "testdata/notify-hang.yaml"} {
		s, err := scenarios.LoadFile(file)
		require.NoError(t, err)
		ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
		o, err := run.Execute(ctx, s, "setpx", run.Options{Out: t.TempDir()})
		require.NoError(t, err, file)
		require.NotEmpty(t, o.Verdict, file)
	}
}
