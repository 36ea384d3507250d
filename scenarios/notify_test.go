package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/scenarios"
)

// TestNotifyLostMessageCostsAtMostTheTTL checks the claim the two
// notify-fault scenarios make beyond their verdict: the holder's release
// does not wake the waiters (its message is lost, to a cut or to a
// restart), and still the first waiter acquires no later than one TTL
// after it was first refused. In virtual time, where the schedule does not
// depend on the machine.
func TestNotifyLostMessageCostsAtMostTheTTL(t *testing.T) {
	for _, name := range []string{"notify-message-lost", "notify-node-restart"} {
		s, err := scenarios.Lookup(name)
		require.NoError(t, err)
		ttl := s.Options.TTL.D()
		for _, algo := range s.Algorithms() {
			t.Run(name+"/"+algo, func(t *testing.T) {
				o, err := execute(t, s, algo, virtualTime)
				require.NoError(t, err)
				require.True(t, o.AsExpected, "verdict %s, not played: %v", o.Verdict, o.Unplayed)
				f, err := os.Open(filepath.Join(o.Dir, "history.jsonl"))
				require.NoError(t, err)
				h, err := history.ReadJSONL(f)
				_ = f.Close()
				require.NoError(t, err)

				var released, refused, acquired time.Duration = -1, -1, -1
				for _, op := range h.Ops {
					switch {
					case op.Kind == history.KindRelease && op.Client == 0 && op.Outcome == history.OK && released < 0:
						released = op.Return
					case op.Kind == history.KindAcquire && op.Client > 0 && op.Outcome == history.Fail && refused < 0:
						refused = op.Call
					case op.Kind == history.KindAcquire && op.Client > 0 && op.Outcome == history.OK && acquired < 0:
						acquired = op.Return
					}
				}
				require.True(t, released >= 0 && refused >= 0 && acquired >= 0, "release %v, refusal %v, acquire %v", released, refused, acquired)
				require.Greater(t, acquired-released, 100*time.Millisecond,
					"a waiter acquired %v after the release: its message was not lost", acquired-released)
				require.LessOrEqual(t, acquired-refused, ttl+20*time.Millisecond,
					"the first waiter acquired %v after its first refusal, more than the TTL", acquired-refused)
			})
		}
	}
}

// TestNotifyWaitsRecorded: a notified waiter's waits for the unlock
// message are in the history (an attempt's wait_from), each between a
// refusal of its client and that client's next attempt, with no attempt
// inside; the same run polling has refusals and no such waits. In virtual
// time.
func TestNotifyWaitsRecorded(t *testing.T) {
	s, err := scenarios.Lookup("notify-contention")
	require.NoError(t, err)
	poll := *s
	w := "poll"
	poll.Options.Wait = &w
	for _, tc := range []struct {
		name  string
		s     *scenarios.Scenario
		waits bool
	}{{"notify", s, true}, {"poll", &poll, false}} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := execute(t, tc.s, "setpx", virtualTime)
			require.NoError(t, err)
			f, err := os.Open(filepath.Join(o.Dir, "history.jsonl"))
			require.NoError(t, err)
			h, err := history.ReadJSONL(f)
			_ = f.Close()
			require.NoError(t, err)
			v := checker.Read(h)
			require.NotEmpty(t, v.Failed, "no client was refused: nobody had to wait")
			if !tc.waits {
				require.Empty(t, v.Waits, "a polling run recorded waits for the unlock message")
				return
			}
			require.NotEmpty(t, v.Waits, "a notified run recorded no wait for the unlock message")
			for _, w := range v.Waits {
				refusedBefore := false
				for _, op := range h.Ops {
					if op.Kind != history.KindAcquire || op.Client != w.Client {
						continue
					}
					refusedBefore = refusedBefore || (op.Outcome == history.Fail && op.Return <= w.Start)
					require.False(t, op.Call > w.Start && op.Call < w.End, "client %d attempted at %v inside its wait %v-%v", w.Client, op.Call, w.Start, w.End)
				}
				require.True(t, refusedBefore, "client %d waited from %v without a refusal before", w.Client, w.Start)
			}
		})
	}
}
