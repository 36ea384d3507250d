package explore

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A round of strengthening grows every length and size by half and the
// run by the most a length grew; points, nodes and kinds stay.
func TestStrengthen(t *testing.T) {
	s := mustParse(t, `name: weak
algorithm: redlock
nodes: 3
clients: 2
duration: 1s
faults:
  - {kind: pause-client, client: 0, when: {point: after-enter, nth: 1}, for: 520ms}
  - {kind: clock-jump-node, node: 1, by: 400ms, at: 200ms}
  - {kind: kill-node, node: 2, at: 100ms, restart_after: 10ms, keep_data: false}
  - {kind: delay, client: 1, latency: 80ms, at: 300ms, for: 100ms}
`)
	c := strengthen(s)
	require.NotNil(t, c)
	assert.Equal(t, 780*time.Millisecond, c.Faults[0].For.D())
	assert.Equal(t, "after-enter", c.Faults[0].When.Point)
	assert.Equal(t, 600*time.Millisecond, c.Faults[1].By.D())
	assert.Equal(t, 15*time.Millisecond, c.Faults[2].RestartAfter.D())
	assert.Equal(t, 120*time.Millisecond, c.Faults[3].Latency.D())
	assert.Equal(t, 150*time.Millisecond, c.Faults[3].For.D())
	assert.Equal(t, 1500*time.Millisecond, c.Duration.D(), "the run grows by half, more than the pause's 260ms")
	assert.Equal(t, 30*time.Millisecond, c.Hold.D(), "the hold grows by half")
	long := clone(s)
	long.Faults[0].For = dur(2 * time.Second)
	assert.Equal(t, 2*time.Second, strengthen(long).Duration.D(), "the run grows by the pause's 1s, more than by half")
	long.Hold = dur(100 * time.Millisecond)
	assert.Equal(t, 100*time.Millisecond, strengthen(long).Hold.D(), "150ms would pass a quarter of the 500ms lease")
	assert.Equal(t, 520*time.Millisecond, s.Faults[0].For.D(), "the original is untouched")
	assert.Equal(t, time.Second, s.Duration.D())
	_, err := c.Config("redlock")
	require.NoError(t, err)

	st := stretched(s)
	require.NotNil(t, st)
	assert.Equal(t, 80*time.Millisecond, st.Hold.D(), "the hold grows as widening grows it")
	assert.Equal(t, 1500*time.Millisecond, st.Duration.D(), "the run grows by half")
	assert.Equal(t, s.Faults, st.Faults, "the faults stay as they are")
	assert.Equal(t, 125*time.Millisecond, stretched(long).Hold.D(), "at most a quarter of the lease")
	long.Hold = dur(125 * time.Millisecond)
	assert.Nil(t, stretched(long), "the hold cannot grow past a quarter of the lease")

	crash := mustParse(t, `name: crash
algorithm: setnx-expire
faults:
  - {kind: crash-client, client: 0, when: {point: between-setnx-and-expire}}
`)
	assert.Nil(t, strengthen(crash), "nothing to grow")
}

func TestTally(t *testing.T) {
	r := Rule{Reruns: 10, Need: 8}
	assert.True(t, tally{k: 8, n: 10}.meets(r))
	assert.False(t, tally{k: 7, n: 10}.meets(r))
	assert.False(t, tally{k: 8, n: 9}.meets(r), "an interrupted confirmation meets nothing")
	assert.False(t, tally{k: 8, n: 10, err: errors.New("x")}.meets(r))
	assert.True(t, tally{k: 5, n: 10}.better(tally{k: 3, n: 10}))
	assert.False(t, tally{k: 3, n: 10}.better(tally{k: 3, n: 10}))
	assert.True(t, tally{k: 0, n: 10}.better(tally{}), "a count beats none")
	assert.Equal(t, "3/10", tally{k: 3, n: 10}.String())
	assert.Equal(t, "1/2, then failed: x", tally{k: 1, n: 2, err: errors.New("x")}.String())
}

// A strengthened violation shows its figures as shrunk beside the final
// ones, in the CLI's line, in summary.md and in explore.json.
func TestStrengthenedViolationIsReported(t *testing.T) {
	v := Violation{Check: "exclusion", Verdict: "unsafe", Signature: "exclusion unsafe [pause-client]", FaultsBefore: 3, FaultsAfter: 1,
		Strengthened: 2, Reproduced: Reproduced{Virtual: "10/10", Redis: "9/10", AsShrunk: &Reproduced{Virtual: "10/10", Redis: "3/10"}}}
	assert.Contains(t, v.Line(), "virtual 10/10, redis 9/10 (strengthened x2; as shrunk: virtual 10/10, redis 3/10)")
	r := &Report{Algorithm: "setnx-expire", Violations: []Violation{v}}
	assert.Contains(t, r.Markdown(), "as shrunk it reproduced 10/10 in virtual time and 3/10 on redis-server; strengthened 2 times")
	dir := t.TempDir()
	require.NoError(t, r.Write(dir))
	back, err := ReadReport(dir)
	require.NoError(t, err)
	require.NotNil(t, back.Violations[0].Reproduced.AsShrunk)
	assert.Equal(t, "3/10", back.Violations[0].Reproduced.AsShrunk.Redis)
	assert.Equal(t, 2, back.Violations[0].Strengthened)
}

// Faults that start at one time (a burst) are grouped, so that shrinking
// moves them to a point together and they stay one moment.
func TestSameTimes(t *testing.T) {
	s := mustParse(t, `name: burst
algorithm: redlock
nodes: 3
faults:
  - {kind: kill-node, node: 0, at: 418ms, for: 100ms}
  - {kind: clock-jump-node, node: 0, at: 2.13s, by: 1s}
  - {kind: pause-client, client: 0, when: {point: after-acquire}, for: 100ms}
  - {kind: clock-jump-node, node: 2, at: 2.13s, by: 1s}
  - {kind: clock-jump-node, node: 1, at: 418ms, by: 1s}
`)
	assert.Equal(t, [][]int{{0, 4}, {1, 3}}, sameTimes(s.Faults))
}

// Faults that fire at the same visit of the same point, or at the same
// time, are one group for shrinking.
func TestSameTriggers(t *testing.T) {
	s := mustParse(t, `name: bursts
algorithm: redlock
nodes: 3
clients: 2
faults:
  - {kind: kill-node, node: 0, when: {client: 1, point: before-exit, nth: 2}, for: 100ms}
  - {kind: kill-node, node: 1, when: {client: 1, point: before-exit, nth: 2}, for: 100ms}
  - {kind: clock-jump-node, node: 2, when: {client: 0, point: after-check, nth: 3}, by: 1s}
  - {kind: clock-jump-node, node: 0, when: {client: 0, point: after-check, nth: 3}, by: 1s}
  - {kind: clock-jump-node, node: 1, when: {client: 0, point: after-check, nth: 2}, by: 1s}
  - {kind: pause-client, client: 0, at: 1s, for: 100ms}
`)
	assert.Equal(t, [][]int{{0, 1}, {2, 3}}, sameTriggers(s.Faults))
	var groups [][]string
	for _, c := range candidates(s, "redlock", outcome{})[:4] {
		var kinds []string
		for _, f := range c.s.Faults {
			kinds = append(kinds, string(f.Kind))
		}
		groups = append(groups, kinds)
	}
	assert.Equal(t, [][]string{
		{"kill-node", "kill-node"},
		{"clock-jump-node", "clock-jump-node", "clock-jump-node", "pause-client"},
		{"clock-jump-node", "clock-jump-node"},
		{"kill-node", "kill-node", "clock-jump-node", "pause-client"},
	}, groups, "first each group alone, then the rest without it")
}

// A schedule with a failover has a replication lag fault that goes with
// the replica; alone it is no candidate (setpx's exploration once
// panicked on it).
func TestCandidatesWithReplicationLag(t *testing.T) {
	s := mustParse(t, `name: lag
algorithm: setpx
nodes: 1
replicas: 1
clients: 2
faults:
  - {kind: delay, groups: [[r0], [n0]], latency: 600ms, at: 0s}
  - {kind: failover, node: 0, when: {client: 0, point: after-acquire}}
  - {kind: kill-node, node: 0, at: 1s, keep_data: false, restart_after: 10ms}
`)
	for _, c := range candidates(s, "setpx", outcome{}) {
		assert.NotEmpty(t, c.s.Faults)
	}
}

// The robust steps change circumstances, never faults: the hold widened
// within a quarter of the lease, node and link faults at any client's
// point, points at their first visit, every combination of the three and
// the last two one fault at a time; a client's own fault keeps its client.
func TestRobustSteps(t *testing.T) {
	s := mustParse(t, `name: edge
algorithm: setpx
options: {ttl: 500ms}
replicas: 1
clients: 2
hold: 20ms
faults:
  - {kind: partition, groups: [[r0], [n0]], when: {client: 0, point: before-acquire, nth: 3}, for: 18ms}
  - {kind: failover, node: 0, when: {client: 0, point: after-acquire, nth: 3}}
  - {kind: pause-client, client: 1, when: {point: after-enter, nth: 2}, for: 10ms}
`)
	steps := robustSteps(s)
	require.NotEmpty(t, steps)
	var all robustStep
	for _, st := range steps {
		require.Len(t, st.s.Faults, 3, "no fault added or removed")
		assert.Equal(t, 18*time.Millisecond, st.s.Faults[0].For.D(), "no fault lengthened")
		assert.Equal(t, 10*time.Millisecond, st.s.Faults[2].For.D())
		assert.Nil(t, st.s.Faults[2].When.Client, "the pause's trigger still defaults to its own client")
		assert.LessOrEqual(t, st.s.Hold.D(), 125*time.Millisecond, "within a quarter of the lease")
		if st.gain > all.gain {
			all = st
		}
	}
	assert.Equal(t, 125*time.Millisecond, all.s.Hold.D(), "a quarter of the lease")
	for _, f := range all.s.Faults[:2] {
		assert.Nil(t, f.When.Client, "any client's visit")
		assert.Equal(t, 1, *f.When.Nth)
	}
	assert.Equal(t, 1, *all.s.Faults[2].When.Nth)
	assert.Equal(t, 1+2+3, all.gain, "a wider hold, two faults at any client's point, three at a first visit")
	assert.Equal(t, 20*time.Millisecond, s.Hold.D(), "the original is untouched")
	assert.Equal(t, 0, *s.Faults[0].When.Client)

	s.Hold = dur(125 * time.Millisecond)
	for _, st := range robustSteps(s) {
		assert.Equal(t, 125*time.Millisecond, st.s.Hold.D(), "a hold at a quarter of the lease does not grow")
	}
}

// Shrinking's last step takes a scenario at its rule's edge (9 of 10 in
// virtual time) to the most margin virtual time can show, which is what
// real time on redis-server needs: a setpx failover claim at client 0's
// third acquire, and a setpx claim broken by kills without data at client
// 0's third entry and second release.
func TestPolishMargin(t *testing.T) {
	cases := []struct{ name, yaml string }{
		{"failover", `name: failover-edge
algorithm: setpx
options: {ttl: 500ms}
nodes: 1
replicas: 1
clients: 2
duration: 1.13s
hold: 20ms
seed: 589995548
faults:
  - {kind: partition, groups: [[r0], [n0]], when: {client: 0, point: before-acquire, nth: 3}, for: 18ms}
  - {kind: failover, node: 0, when: {client: 0, point: after-acquire, nth: 3}}
`},
		{"kill", `name: kill-edge
algorithm: setpx
options: {ttl: 500ms}
nodes: 1
clients: 2
duration: 420ms
hold: 20ms
seed: 470511696
faults:
  - {kind: kill-node, node: 0, when: {client: 0, point: after-enter, nth: 3}, for: 12ms, restart_after: 0s, keep_data: false}
  - {kind: kill-node, node: 0, when: {client: 0, point: before-release-command, nth: 2}, for: 24ms, restart_after: 165ms, keep_data: false}
`},
	}
	target := Finding{Check: "claim", Verdict: "unsafe"}
	r := Rule{Reruns: 10, Need: 8, Workers: 2}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.yaml)
			last, ok, err := failsOnce(hostCtx(t), s, "setpx", target)
			require.NoError(t, err)
			require.True(t, ok, "the edge case fails in its own seed's run")
			var sh Shrunk
			p, _ := polishMargin(hostCtx(t), s, last, "setpx", target, &sh)
			out, _ := MarshalScenario(p)
			t.Logf("polished in %d steps (%d tries):\n%s", sh.Steps, sh.Tries, out)
			_, ok, err = failsOnce(hostCtx(t), p, "setpx", target)
			require.NoError(t, err)
			assert.True(t, ok, "the polished scenario fails in its own seed's run")
			k, _, err := r.reproduce(hostCtx(t), p, "setpx", target)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, k, r.Need, "and across seeds, as the confirmation's rule asks")
			assert.Greater(t, p.Hold.D(), s.Hold.D(), "a wider hold")
			require.Len(t, p.Faults, len(s.Faults))
			for _, f := range p.Faults {
				assert.Nil(t, f.When.Client, "at any client's point")
				assert.Equal(t, 1, *f.When.Nth, "at its first visit")
			}
		})
	}
}

// A fault that only made up for a short hold may go: shrinking also tries
// each fewer-faults candidate with the hold widened, after every plain
// candidate, and never widens past a quarter of the lease.
func TestFewerWithWiderHold(t *testing.T) {
	s := mustParse(t, `name: two-kills
algorithm: setpx
options: {ttl: 500ms}
clients: 2
hold: 20ms
faults:
  - {kind: kill-node, node: 0, when: {client: 1, point: after-enter, nth: 3}, restart_after: 0s, for: 12ms}
  - {kind: kill-node, node: 0, when: {client: 1, point: before-release-command, nth: 2}, restart_after: 165ms, for: 24ms}
`)
	cands := candidates(s, "setpx", outcome{})
	wide := fewerWithWiderHold(s, cands)
	var one int
	for _, c := range wide {
		assert.Less(t, len(c.s.Faults), 2)
		assert.Equal(t, 125*time.Millisecond, c.s.Hold.D())
		if len(c.s.Faults) == 1 {
			one++
		}
	}
	assert.Equal(t, 2, one, "one for each fault dropped (and one without client 1, whose faults go with it)")
	s.Hold = dur(125 * time.Millisecond)
	assert.Empty(t, fewerWithWiderHold(s, candidates(s, "setpx", outcome{})), "the hold is at a quarter of the lease already")
}

// After polishing, a fault that was needed only under the unpolished
// circumstances goes: the second kill of a setpx claim broken by a kill
// without data, once both are at any client's first visit with an 80 ms
// hold.
func TestFewerAfterPolish(t *testing.T) {
	s := mustParse(t, `name: polished-kills
algorithm: setpx
options: {ttl: 500ms}
nodes: 1
clients: 2
duration: 560ms
hold: 80ms
seed: 470511696
faults:
  - {kind: kill-node, node: 0, when: {point: after-enter}, for: 12ms, restart_after: 0s, keep_data: false}
  - {kind: kill-node, node: 0, when: {point: before-release-command}, for: 94ms, restart_after: 165ms, keep_data: false}
`)
	target := Finding{Check: "claim", Verdict: "unsafe"}
	last, ok, err := failsOnce(hostCtx(t), s, "setpx", target)
	require.NoError(t, err)
	require.True(t, ok)
	var sh Shrunk
	p, _ := fewerAfterPolish(hostCtx(t), s, last, "setpx", target, &sh)
	require.Len(t, p.Faults, 1, "the first kill alone breaks the claim")
	assert.Equal(t, "after-enter", p.Faults[0].When.Point)
	_, ok, err = failsOnce(hostCtx(t), p, "setpx", target)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Len(t, s.Faults, 2, "the original is untouched")
}
