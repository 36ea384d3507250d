package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// A fault the scenario needs that never fires means the run did not play
// the scenario: it is not as expected, whatever the verdict, and its report
// says why. Marked optional, the same run counts.
func TestUnfiredFaultIsNotAsExpected(t *testing.T) {
	for _, c := range []struct {
		optional string
		want     bool
	}{{"", false}, {"\n    optional: true", true}} {
		s, err := scenarios.Parse("unfired.yaml", []byte(`name: unfired
algorithm: setpx
duration: 300ms
faults:
  - kind: crash-client # setpx never reaches this point
    client: 0
    when: {point: between-setnx-and-expire}`+c.optional+`
expect:
  setpx: safe
`))
		require.NoError(t, err)
		o, err := run.Execute(context.Background(), s, "setpx", run.Options{Out: t.TempDir()})
		require.NoError(t, err)
		assert.Equal(t, "safe", string(o.Verdict))
		assert.Equal(t, c.want, o.AsExpected, "optional %q", c.optional)

		b, err := os.ReadFile(filepath.Join(o.Dir, report.FileVerdict))
		require.NoError(t, err)
		var v report.VerdictFile
		require.NoError(t, json.Unmarshal(b, &v))
		assert.Equal(t, c.want, v.AsExpected, "verdict.json agrees")
		summary, err := os.ReadFile(filepath.Join(o.Dir, report.FileSummary))
		require.NoError(t, err)
		if !c.want {
			assert.Contains(t, string(summary), "not played** (fault 1 crash-client never acted: it never started")
		}
	}
}

// A run that tested little says so, without a verdict change: when a delay
// longer than node_timeout makes every acquire fail, and when one client
// never gets the lock because the other holds it the whole run. The
// warning is in the outcome (the command line's one-line result),
// verdict.json's warnings and summary.md; it is derived from the history.
func TestRunThatTestedLittleWarns(t *testing.T) {
	for _, c := range []struct {
		name, yaml, algo string
		want             string // a warning matching this
		// verdict is the run's; "" when it may vary: an attempt that
		// begins as the clients stop can get the lock after the heal,
		// which makes the run safe (the warning then names the fault).
		verdict string
	}{
		{"every acquire fails", `name: slow-links
algorithm: setpx
options: {node_timeout: 20ms}
clients: 1
duration: 400ms
faults:
  - kind: delay # in force before the first acquire is sent
    latency: 50ms
    when: {client: 0, point: before-acquire}
`, "setpx", `^no acquire succeeded (\(\d+ attempts: all \d+ with unknown outcome; most often "i/o timeout"; fault 1 delay 50ms|while fault 1 delay 50ms .*\(\d+ attempts: all \d+ with unknown outcome; most often "i/o timeout"\): the run did not test the lock under that fault \(is the delay longer than node_timeout\?\)$)`, ""},
		{"a client never gets the lock", `name: long-hold
algorithm: setpx
options: {ttl: 300ms, watchdog: true}
hold: 5s
duration: 1s
`, "setpx", `^client [01] never acquired the lock \(\d+ attempts: all \d+ failed(; most often "[^"]+")?\): the run tested only the other client's cycles$`, "safe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenarios.Parse(c.name+".yaml", []byte(c.yaml))
			require.NoError(t, err)
			ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
			o, err := run.Execute(ctx, s, c.algo, run.Options{Out: t.TempDir()})
			require.NoError(t, err)
			if c.verdict != "" {
				assert.Equal(t, c.verdict, string(o.Verdict), "a warning is not a verdict")
			}
			// A fault without an end of its own (the delay) was meant to
			// last the run: its being on at the end is no warning.
			require.Len(t, o.Warnings, 1, "%q", o.Warnings)
			assert.Regexp(t, c.want, o.Warnings[0])

			v, err := report.ReadVerdict(filepath.Join(o.Dir, report.FileVerdict))
			require.NoError(t, err)
			assert.Equal(t, o.Warnings, v.Warnings, "verdict.json's warnings")
			summary, err := os.ReadFile(filepath.Join(o.Dir, report.FileSummary))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "⚠ **Warning:** "+o.Warnings[0])
		})
	}
}

// A run in which every client acquired has no warning, and verdict.json
// says so with an empty list.
func TestRunThatTestedEnoughHasNoWarning(t *testing.T) {
	s, err := scenarios.Parse("plain.yaml", []byte("name: plain\nalgorithm: setpx\nduration: 300ms\n"))
	require.NoError(t, err)
	ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
	o, err := run.Execute(ctx, s, "setpx", run.Options{Out: t.TempDir()})
	require.NoError(t, err)
	assert.Empty(t, o.Warnings)
	b, err := os.ReadFile(filepath.Join(o.Dir, report.FileVerdict))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"warnings": []`)
}
