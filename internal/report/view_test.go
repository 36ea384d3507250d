package report

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/checker"
)

// A Run that carries its history's View writes the summary and draws
// the timeline from it: the same bytes as a Run that reads it itself,
// and a different View (none of the history's leases) shows.
func TestRunViewIsRead(t *testing.T) {
	for _, in := range []Run{gcPauseRun(t), newRun(t, "busy", "redlock", busy(), 6, "unsafe"), newRun(t, "fenced", "fenced", fencedPause(), 2, "safe")} {
		draw := func(in Run) (summary, svg string) {
			var s, g bytes.Buffer
			require.NoError(t, writeSummary(&s, in))
			tl, err := newTimeline(context.Background(), in)
			require.NoError(t, err)
			require.NoError(t, tl.writeTo(&g, "svg"))
			return s.String(), g.String()
		}
		sum, svg := draw(in)
		v := checker.Read(in.History)
		require.NotEmpty(t, v.Leases)
		shared := in
		shared.View = &v
		sum2, svg2 := draw(shared)
		assert.Equal(t, sum, sum2, in.Scenario)
		assert.Equal(t, svg, svg2, in.Scenario)

		other := v
		other.Leases, other.Sections, other.Failed = nil, nil, nil
		shared.View = &other
		sum3, svg3 := draw(shared)
		assert.NotEqual(t, sum, sum3, "%s: the summary reads the View it is given", in.Scenario)
		assert.NotEqual(t, svg, svg3, "%s: the timeline reads the View it is given", in.Scenario)
	}
}
