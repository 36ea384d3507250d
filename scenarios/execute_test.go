package scenarios_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/scenarios"
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
		o, err := scenarios.Execute(context.Background(), s, "setpx", scenarios.RunOptions{Out: t.TempDir()})
		require.NoError(t, err)
		assert.Equal(t, "safe", string(o.Verdict))
		assert.Equal(t, c.want, o.AsExpected, "optional %q", c.optional)

		b, err := os.ReadFile(filepath.Join(o.Dir, report.FileVerdict))
		require.NoError(t, err)
		var v report.Verdict
		require.NoError(t, json.Unmarshal(b, &v))
		assert.Equal(t, c.want, v.AsExpected, "verdict.json agrees")
		summary, err := os.ReadFile(filepath.Join(o.Dir, report.FileSummary))
		require.NoError(t, err)
		if !c.want {
			assert.Contains(t, string(summary), "not played** (fault 1 crash-client never acted)")
		}
	}
}
