package explore

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vocab"
)

// Without --strict only the violations the reference does not share fail
// an exploration; with it, or without a reference, every one does.
func TestFailingLeavesOutKnown(t *testing.T) {
	own := Violation{Signature: "claim unsafe [pause-client]"}
	known := Violation{Signature: "exclusion unsafe [pause-client] known", Known: true}
	r := &Report{Algorithm: "x", Reference: "setpx", Violations: []Violation{known, own}}
	assert.Equal(t, []Violation{own}, r.Failing())
	assert.Contains(t, r.DifferentialLine(), "1 distinct violations only x has, 1 that setpx has too")
	r.Strict = true
	assert.Len(t, r.Failing(), 2)
	r.Strict, r.Reference = false, ""
	assert.Len(t, r.Failing(), 2)
	assert.Empty(t, r.DifferentialLine())
	assert.Empty(t, r.differentialMarkdown())
}

// The reason a violation is known names the reference and the check, and
// says what the family cannot prevent, from the check and the kinds.
func TestKnownWhy(t *testing.T) {
	cases := []struct {
		f    Finding
		want string
	}{
		{Finding{Check: vocab.CheckExclusion, Verdict: vocab.Unsafe, Kinds: []string{"pause-client"}}, "no lock without fencing"},
		{Finding{Check: vocab.CheckClaim, Verdict: vocab.Unsafe, Kinds: []string{"kill-node"}}, "the key was lost"},
		{Finding{Check: vocab.CheckClaim, Verdict: vocab.Unsafe, Kinds: []string{"clock-jump-node"}}, "bounded clock drift"},
		{Finding{Check: vocab.CheckLiveness, Verdict: vocab.Deadlock}, "could not take the lock either"},
	}
	for _, c := range cases {
		why := knownWhy("setpx", c.f)
		assert.Contains(t, why, "the reference setpx fails "+c.f.Check+" too")
		assert.Contains(t, why, c.want)
	}
}

// The reference is the design's Like unless --against names another or
// none; an unknown one is bad input naming the flag.
func TestReferenceResolves(t *testing.T) {
	assert.Empty(t, Config{Algorithm: "setpx"}.reference(), "setpx names no Like")
	assert.Equal(t, "fenced", Config{Algorithm: "setpx", Against: "fenced"}.reference())
	assert.Empty(t, Config{Algorithm: "setpx", Against: AgainstNone}.reference())
	_, err := Config{Algorithm: "setpx", Against: "nope"}.Resolve()
	require.ErrorIs(t, err, BadInput)
	assert.Contains(t, err.Error(), "--against")
}

// A schedule whose violation the reference shares is marked known; one
// the reference passes stays the candidate's own. setpx-del against setpx
// under a client pause past the lease: both overlap (exclusion), only
// setpx-del's DEL removes the next holder's key (claim).
func TestJudgeSplitsByCheck(t *testing.T) {
	ctx := hostCtx(t)
	s := &scenarios.Scenario{
		Name: "judge", Algorithm: scenarios.AlgorithmList{"setpx-del"}, Clients: ptr(3), Nodes: ptr(1),
		Duration: dur(2 * time.Second), Hold: dur(100 * time.Millisecond), Seed: ptr(uint64(1)),
		Faults: []scenarios.FaultSpec{{Kind: "pause-client", Client: ptr(0),
			When: &scenarios.PointSpec{Point: "after-enter"}, For: dur(700 * time.Millisecond)}},
	}
	o, err := runOnce(ctx, s, "setpx-del", 1)
	require.NoError(t, err)
	require.True(t, o.Violation(), "setpx-del fails under a pause past its lease")
	cfg := Config{Algorithm: "setpx-del", Against: "setpx"}
	ex := cfg.judge(ctx, s, Finding{Check: vocab.CheckExclusion, Verdict: vocab.Unsafe})
	assert.True(t, ex.Known, "setpx overlaps under the same pause")
	assert.True(t, strings.HasSuffix(ex.Signature(), " known"))
	if o.checks[vocab.CheckClaim] == vocab.Unsafe {
		cl := cfg.judge(ctx, s, Finding{Check: vocab.CheckClaim, Verdict: vocab.Unsafe})
		assert.False(t, cl.Known, "setpx keeps its claim under a pause")
	}
	none := Config{Algorithm: "setpx-del"}.judge(ctx, s, o.Finding)
	assert.False(t, none.Known, "without a reference nothing is known")
}

// The workload is drawn per schedule for the features a design has, the
// same for the same (seed, j), and each drawn field has a shrink step back
// to its default; the watchdog stays under a hold past the TTL.
func TestWorkloadDrawn(t *testing.T) {
	count := func(algo string, f func(s *scenarios.Scenario) bool) int {
		cfg := Config{Algorithm: algo, Seed: 3}.withDefaults()
		n := 0
		for j := range 200 {
			s := Generate(cfg, LoopPoints, j)
			if f(s) {
				n++
			}
			_, err := s.Config(algo)
			require.NoError(t, err, "%s schedule %d", algo, j)
		}
		return n
	}
	watchdog := func(s *scenarios.Scenario) bool { return s.Options.Watchdog != nil && *s.Options.Watchdog }
	assert.Greater(t, count("setpx", watchdog), 50)
	assert.Zero(t, count("setnx-expire", watchdog), "no watchdog to turn on")
	assert.Greater(t, count("reentrant", func(s *scenarios.Scenario) bool { return s.Nest != nil && *s.Nest >= 2 && *s.Nest <= 3 }), 80)
	assert.Zero(t, count("setpx", func(s *scenarios.Scenario) bool { return s.Nest != nil }))
	assert.Greater(t, count("rwlock-counted", func(s *scenarios.Scenario) bool { return s.ReadRatio != nil }), 100)
	ttl := 500 * time.Millisecond
	assert.Greater(t, count("setpx", func(s *scenarios.Scenario) bool { return s.Hold.D() > ttl }), 10)
	assert.Zero(t, count("setnx-expire", func(s *scenarios.Scenario) bool { return s.Hold.D() >= ttl }),
		"past the TTL only with a watchdog")

	s := &scenarios.Scenario{Options: scenarios.Options{Watchdog: ptr(true)}, Nest: ptr(3), ReadRatio: ptr(0.5), Hold: dur(100 * time.Millisecond)}
	c := workloadCandidates(s)
	require.Len(t, c, 4) // no watchdog, no nest, nest 2, no reads
	assert.Nil(t, c[0].s.Options.Watchdog)
	assert.Nil(t, c[1].s.Nest)
	assert.Equal(t, 2, *c[2].s.Nest)
	assert.Nil(t, c[3].s.ReadRatio)
	assert.True(t, *s.Options.Watchdog, "the original is untouched")
	s.Hold = dur(time.Second)
	for _, cd := range workloadCandidates(s) {
		assert.NotNil(t, cd.s.Options.Watchdog, "a hold past the TTL keeps its watchdog")
	}
}
