package report

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A report about one check zooms on that check's witness: the node clock
// jump breaks exclusion and the claim both; by default the zoom shows the
// first witness (exclusion's), with Zoom set to claim the claim's.
func TestTimelineZoomsOnTheNamedCheck(t *testing.T) {
	in := newRun(t, "redlock-node-clock-jump", "redlock", clockJump(), 2, "unsafe")
	checks := map[string]bool{}
	for _, o := range overlaps(in.Check) {
		checks[o.check] = true
	}
	require.True(t, checks["exclusion"] && checks["claim"], "the fixture has witnesses of both checks: %v", checks)

	tl, err := newTimeline(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, tl.panels, 2)
	assert.Contains(t, tl.panels[1].title, "(exclusion)")

	in.Zoom = "claim"
	tl, err = newTimeline(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, tl.panels, 2)
	assert.Contains(t, tl.panels[1].title, "(claim)")

	in.Zoom = "liveness" // no witness of it: the first of any check
	tl, err = newTimeline(context.Background(), in)
	require.NoError(t, err)
	assert.Contains(t, tl.panels[1].title, "(exclusion)")
}

func TestZoomFirstKeepsTheOthers(t *testing.T) {
	os := []overlap{{check: "exclusion", a: 1}, {check: "claim", a: 2}, {check: "claim", a: 3}, {check: "fencing", a: 4}}
	got := zoomFirst(os, "claim")
	assert.Equal(t, []int{2, 1, 3, 4}, []int{got[0].a, got[1].a, got[2].a, got[3].a})
	assert.Equal(t, os, zoomFirst(os, ""))
	assert.Equal(t, os, zoomFirst(os, "exclusion"))
}
