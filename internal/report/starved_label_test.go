package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/vocab"
)

// A starved client's witness (liveness) is one client's wait and the free
// stretch in it: the chart names it so, never as an overlap of a client
// with itself.
func TestStarvedWitnessIsNamedSo(t *testing.T) {
	r := checker.Result{Checks: []checker.CheckResult{{Name: vocab.CheckLiveness, Verdict: vocab.Unsafe,
		Witnesses: []checker.Witness{{Check: vocab.CheckLiveness, Key: "locksim:0",
			A: checker.Interval{Client: 1, Start: 0, End: 2000 * time.Millisecond}, B: checker.Interval{Client: 1, Start: 155 * time.Millisecond, End: 2000 * time.Millisecond}}}}}}
	ovs := overlaps(r)
	if assert.Len(t, ovs, 1) {
		assert.True(t, ovs[0].starved())
		assert.Equal(t, 155*time.Millisecond, ovs[0].start, "the frame is the free stretch")
		label := witnessLabel(ovs[0])
		assert.Contains(t, label, "client 1 starved")
		assert.NotContains(t, label, "client 1 / client 1")
	}
}
